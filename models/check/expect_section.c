/*
 * expect_section.c - the scenario's "expect" section, checked and kept
 * (see expect_section.h). Judges nothing: models/check/ does.
 */
#include "models/check/expect_section.h"

#include "models/scenario_types.h"

#include <string.h>

/* Comparison operators an expectation may use. */
static const char *const expect_ops[] = {"==", "!=", "<", "<=", ">", ">=", NULL};

void ks_expect_section_load(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *obj;
    if (!ks_conf_get_object(L, root, "expect", &obj))
        return;
    size_t mark = ks_conf_enter(L, "expect");
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        size_t m = ks_conf_enter(L, k);
        const char *text = ks_conf_set_text(L, v);
        if (text) {
            /* --set expect.PATH=TEXT: read TEXT as JSON when it is JSON
             * ("10", "true", "null"), else keep it as a string. */
            json_error_t je;
            json_t *parsed = json_loads(text, JSON_DECODE_ANY, &je);
            if (parsed)
                json_object_set_new(obj, k, parsed);
            v = json_object_get(obj, k);
        }
        if (json_is_object(v) && json_object_size(v) > 0) {
            size_t ops = 0;
            const char *ok;
            json_t *ov;
            json_object_foreach(v, ok, ov) {
                bool known = false;
                for (size_t i = 0; expect_ops[i]; i++)
                    known = known || strcmp(ok, expect_ops[i]) == 0;
                if (known) {
                    ops++;
                    if (strcmp(ok, "==") && strcmp(ok, "!=") && !json_is_number(ov)) {
                        size_t m2 = ks_conf_enter(L, ok);
                        ks_conf_err_got(L, ov, "a number to compare with");
                        ks_conf_leave(L, m2);
                    }
                }
            }
            if (ops > 0 && ops != json_object_size(v))
                ks_conf_err(L, "mixes comparison operators with other keys; write "
                       "{\"<=\": 5} style comparisons or a plain value, not both");
        }
        ks_conf_leave(L, m);
    }
    sc->expect = json_deep_copy(obj);
    ks_conf_leave(L, mark);
}

json_t *ks_expect_section_json(const ks_scenario *sc)
{
    return sc->expect ? json_deep_copy(sc->expect) : NULL;
}
