/* stub */
#include "models/txn_state.h"
