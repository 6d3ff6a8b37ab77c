/*
 * pp_int.h - internals shared by the preprocessor's files: pp.c (driver,
 * directives, includes, output), pp_lex.c (arenas and the tokenizer),
 * pp_macro.c (macro table and expansion) and pp_expr.c (#if expressions).
 *
 * Tokens live in arenas: macro bodies, file texts and names in `perm` for
 * the whole run, everything produced while scanning in `tmp`, which the
 * driver empties whenever no token is pending.
 */
#ifndef CVM_FE_PP_INT_H
#define CVM_FE_PP_INT_H

#include "pp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_MAX_INCLUDE_DEPTH 64u
#define PP_MAX_OUTPUT (64u << 20)       /* bytes of expanded text */
#define PP_MAX_ARENA (512u << 20)       /* bytes held by both arenas together */
#define PP_MAX_FILE (64u << 20)         /* bytes per source file */
#define PP_MAX_COND_DEPTH 4096u         /* nested #if groups */
#define PP_MAX_EXPAND_DEPTH 200u        /* macro arguments expanded inside arguments */
#define PP_NBUCKETS 1024u

enum pp_kind {
    PP_EOF,
    PP_IDENT,
    PP_NUMBER,
    PP_CHAR,         /* character literal, any prefix */
    PP_STRING,       /* string literal, any prefix */
    PP_PUNCT,
    PP_OTHER,        /* a stray character such as '@' or '`' */
    PP_BADLIT,       /* ' or " without its closing quote on the line */
    PP_PLACEMARKER   /* empty operand of ## during substitution */
};

enum pp_flag {
    PPF_BOL = 1,     /* first token of a line */
    PPF_SPACE = 2,   /* whitespace before it */
    PPF_MACRO = 4,   /* produced by a macro expansion */
    PPF_PARAM = 8    /* macro body token naming parameter `param` */
};

typedef struct pp_macro pp_macro;

/* The macros a token may no longer expand to ("painted blue"). */
typedef struct pp_hideset {
    const pp_macro *m;
    struct pp_hideset *next;
} pp_hideset;

typedef struct pp_tok {
    struct pp_tok *next;
    const char *text;
    uint32_t len;
    uint8_t kind, flags;
    uint16_t param;
    const char *fname;     /* presumed file name (stable for the run) */
    uint32_t line, col;    /* presumed line, 1-based byte column */
    const pp_hideset *hs;
} pp_tok;

enum pp_builtin { PPB_NONE, PPB_FILE, PPB_LINE, PPB_COUNTER };

struct pp_macro {
    pp_macro *next;        /* hash chain */
    const char *name;
    uint32_t len;
    bool funclike, variadic;
    uint8_t builtin;       /* enum pp_builtin */
    uint16_t nparams;      /* the variadic parameter counts */
    const pp_tok *params;  /* list of parameter names */
    const pp_tok *body;
};

typedef struct pp_chunk {
    struct pp_chunk *next;
    size_t size, used;
} pp_chunk;

typedef struct pp_arena {
    pp_chunk *head;
    size_t bytes;          /* held by this arena */
} pp_arena;

/* A position in a text being tokenized. */
typedef struct pp_lexer {
    const char *buf;
    size_t len, pos;
    uint32_t line, col;    /* physical position of buf[pos] */
    int64_t line_delta;    /* presumed line - physical line (#line) */
    const char *fname;     /* presumed file name */
    bool bol;              /* at the start of a line */
    uint32_t eol_line;     /* physical line of the last newline that ended a line */
} pp_lexer;

typedef struct pp_file {
    struct pp_file *next;
    const char *path;      /* as opened (or "<cubevm>/name" for built-ins) */
    const char *key;       /* identity for #pragma once */
    const char *text;
    size_t len;
    bool once, builtin;
} pp_file;

typedef struct pp_src {
    pp_lexer lx;
    pp_file *file;
    pp_tok *ahead;         /* one token of look-ahead from lx */
    pp_lexer ahead_lx;     /* lx before `ahead`, to lex it again after tmp is emptied */
    uint32_t cond_base;    /* conds[] entries opened before this file */
} pp_src;

typedef struct pp_cond {
    const char *fname, *what;   /* where it opened: "#if", "#ifdef", ... */
    uint32_t line, col;
    bool taken, in_else, outer_skip;
} pp_cond;

typedef struct pp {
    cvm_alloc_fn fn;
    void *user;
    cvm_diag *diag;
    cvm_status st;         /* first error */
    const cvm_fe_pp_opts *opts;
    pp_arena perm, tmp;
    size_t arena_bytes;
    pp_macro *macros[PP_NBUCKETS];
    pp_src srcs[PP_MAX_INCLUDE_DEPTH + 1];
    uint32_t nsrcs;
    pp_cond *conds;
    uint32_t nconds, capconds;
    bool skipping;
    pp_tok *pending;       /* tokens to read before the current file */
    bool no_lexer;         /* expanding an argument: its end is the end */
    uint32_t expand_depth;
    pp_file *files;
    uint32_t counter;
    /* output */
    char *out;
    size_t outlen, outcap;
    const char *out_fname;
    uint32_t out_line, out_col;
    char out_last;         /* last character written on this line, 0 at its start */
    uint8_t out_last_kind; /* kind of the token written last on this line */
} pp;

/* ---- pp.c ---- */
/* Records the first error: "fname:line:col: error: message" (tok may be NULL). */
cvm_status cvm_fe_pp_error(pp *p, cvm_status st, const pp_tok *tok, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The error for an unterminated character or string literal. */
cvm_status cvm_fe_pp_badlit(pp *p, const pp_tok *t);

/* ---- pp_lex.c ---- */
void *cvm_fe_pp_alloc(pp *p, pp_arena *a, size_t size);   /* NULL after recording the error */
void cvm_fe_pp_arena_free(pp *p, pp_arena *a);     /* releases every chunk */
char *cvm_fe_pp_strdup(pp *p, pp_arena *a, const char *s, size_t n);
pp_tok *cvm_fe_pp_tok_copy(pp *p, const pp_tok *t);       /* into tmp */
/* Starts tokenizing text[0..len) named fname. */
void cvm_fe_pp_lex_init(pp_lexer *lx, const char *text, size_t len, const char *fname);
/* Next token (kind PP_EOF at the end), allocated in `a`. */
cvm_status cvm_fe_pp_lex(pp *p, pp_lexer *lx, pp_arena *a, pp_tok **out);
bool cvm_fe_pp_is(const pp_tok *t, const char *s);        /* spelled exactly s */

/* ---- pp_macro.c ---- */
pp_macro *cvm_fe_pp_macro_find(pp *p, const char *name, size_t len);
void cvm_fe_pp_macro_remove(pp *p, const char *name, size_t len);
/* Adds or replaces a macro (m allocated in perm). */
void cvm_fe_pp_macro_add(pp *p, pp_macro *m);
/* Parses "#define" operands: name first, up to the end of the line. */
cvm_status cvm_fe_pp_define(pp *p, pp_tok *line, const pp_tok *at);
/* Next token from pending, look-ahead or the current file. */
cvm_status cvm_fe_pp_next(pp *p, pp_tok **out);
/* If t names a macro it may expand, expands it onto the pending list and
 * sets *expanded. */
cvm_status cvm_fe_pp_expand(pp *p, pp_tok *t, bool *expanded);
/* Fully macro-expands a token list on its own. */
cvm_status cvm_fe_pp_expand_list(pp *p, pp_tok *list, pp_tok **out);

/* ---- pp_expr.c ---- */
/* Evaluates the operand tokens of #if/#elif (at: the directive name). */
cvm_status cvm_fe_pp_eval(pp *p, pp_tok *line, const pp_tok *at, bool *out_value);

#endif
