/*
 * parse_short.h - short names for parse.h's cursor functions (peek, next,
 * is, accept, expect ...) in the parser files other than parse.c, which
 * defines the originals under these names. Included after parse.h.
 */
#ifndef CVM_FE_PARSE_SHORT_H
#define CVM_FE_PARSE_SHORT_H

#include "parse.h"

static inline fe_tok *peek(fe_ctx *c) { return fe_p_peek(c); }
static inline fe_tok *peek_at(fe_ctx *c, uint32_t k) { return fe_p_peek_at(c, k); }
static inline fe_tok *next(fe_ctx *c) { return fe_p_next(c); }
static inline bool is(fe_ctx *c, const char *s) { return fe_p_is(c, s); }
static inline bool accept(fe_ctx *c, const char *s) { return fe_p_accept(c, s); }
static inline fe_tok *expect(fe_ctx *c, const char *s) { return fe_p_expect(c, s); }
static inline fe_tok *expect_ident(fe_ctx *c) { return fe_p_expect_ident(c); }
static inline fe_node *new_node(fe_ctx *c, fe_nk kind, fe_tok *tok) { return fe_p_new_node(c, kind, tok); }
static inline fe_type *type_name(fe_ctx *c) { return fe_p_type_name(c); }
static inline const char *tok_name(fe_ctx *c, const fe_tok *t) { return fe_p_tok_name(c, t); }

#endif
