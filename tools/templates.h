/*
 * templates.h - the gnuplot templates of `ksim report` built into the
 * binary (generated at build time from the templates in reports/ by
 * tools/embed_templates.cmake), for a ksim that finds no templates
 * directory: installed without its share/ directory, or copied alone.
 */
#ifndef KS_TEMPLATES_H
#define KS_TEMPLATES_H

typedef struct ks_template {
    const char *name; /* "common", "throughput", ... (the file's name without .gp) */
    const char *text;
} ks_template;

/* Ends with {NULL, NULL}. */
extern const ks_template ks_builtin_templates[];

#endif
