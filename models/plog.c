/* stub */
#include "models/plog.h"
