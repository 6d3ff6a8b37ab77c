/*
 * lower_switch.c - `switch` in the CUDA frontend's lowering (docs/cuda.md,
 * docs/lowering.md "Control flow"): runs of case labels and the statements
 * after them as the bytecode's switch/case/default/fallthrough, GNU case
 * ranges, and a switch on a 64-bit value, whose case values the bytecode
 * (32-bit) cannot hold: the value is compared with each case value and the
 * switch runs on the index of the one it equals.
 */
#include "lower.h"

#include <stdio.h>
#include <string.h>

static void switch_labels(fe_lower *L, fe_node *item);
static int case_values(fe_lower *L, const fe_node *item, int64_t *vals);
static int wide_selector(fe_lower *L, fe_val v, const int64_t *vals, int n);

static bool ends_in_jump(fe_node *s)
{
    while (s && s->kind == N_BLOCK) {
        fe_node *last = s->args;
        while (last && last->next)
            last = last->next;
        s = last;
    }
    return s && (s->kind == N_BREAK || s->kind == N_RETURN || s->kind == N_CONTINUE);
}

void fe_switch_stmt(fe_lower *L, fe_node *s)
{
    fe_val v = fe_by_conversion(L, fe_rvalue(L, s->a), fe_ty(TY_I32), s->a->tok); /* a struct: operator int() */
    if (L->c->err || !fe_is_int(v.ty)) {
        if (!L->c->err)
            fe_error(L->c, s->a->tok, CVM_SYNTAX, "switch quantity is not an integer");
        return;
    }
    fe_type *t = fe_promote(v.ty);
    v = fe_convert(L, v, t, s->tok);
    if (s->d->kind != N_BLOCK) {
        fe_error(L->c, s->tok, CVM_UNSUPPORTED, "a switch body must be a braced block");
        return;
    }
    const int64_t *outer = L->sw_vals;
    const int outer_n = L->sw_n;
    int64_t vals[512];
    int sel;
    L->sw_vals = NULL;
    if (t->size > 4) { /* case values are 32-bit: switch on the index of the matching one */
        L->sw_n = case_values(L, s->d->args, vals);
        sel = wide_selector(L, v, vals, L->sw_n);
        L->sw_vals = vals;
    } else {
        sel = fe_reg(L, L->rtypes[v.reg]); /* not written inside the switch */
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, sel), sel, v.reg);
    }
    if (!L->c->err) {
        fe_emit(L, "switch %%r%d", sel);
        L->switches++;
        switch_labels(L, s->d->args);
        L->switches--;
    }
    L->sw_vals = outer;
    L->sw_n = outer_n;
}

/* A case label's values a..b (one value: b = a); false after an error. */
static bool case_range(fe_lower *L, const fe_node *item, int64_t *a, int64_t *b)
{
    if (!fe_const_eval(L->c, item->a, a) || (item->b && !fe_const_eval(L->c, item->b, b))) {
        fe_error(L->c, item->tok, CVM_SYNTAX, "case label is not an integer constant");
        return false;
    }
    if (!item->b)
        *b = *a;
    if (*b >= *a && (uint64_t)*b - (uint64_t)*a > 256) {
        fe_error(L->c, item->tok, CVM_LIMIT, "case range too large");
        return false;
    }
    return true;
}

/* The distinct case values of a switch on a 64-bit value, in label order,
 * into vals[512]; their count. */
static int case_values(fe_lower *L, const fe_node *item, int64_t *vals)
{
    int n = 0;
    for (; item && !L->c->err; item = item->next) {
        int64_t a, b;
        if (item->kind != N_CASE || !case_range(L, item, &a, &b))
            continue;
        for (uint64_t i = 0; b >= a && i <= (uint64_t)b - (uint64_t)a; i++) {
            const int64_t x = (int64_t)((uint64_t)a + i);
            int j = 0;
            while (j < n && vals[j] != x)
                j++;
            if (j < n)
                continue; /* a duplicate: switch_labels names it */
            if (n == 512) {
                fe_error(L->c, item->tok, CVM_LIMIT, "more than 512 case values in a switch on a 64-bit value");
                return n;
            }
            vals[n++] = x;
        }
    }
    return n;
}

/* The selector of a switch on the 64-bit value v: the index in vals of the
 * value v equals, or -1 (no case: the default, if any). */
static int wide_selector(fe_lower *L, fe_val v, const int64_t *vals, int n)
{
    const char *tn = fe_elem_name(v.ty->kind);
    int sel = fe_reg(L, RT(TY_I32, 1, 0)); /* not written inside the switch */
    fe_emit(L, "const.i32 %%r%d, -1", sel);
    for (int j = 0; j < n; j++) {
        int c = fe_reg(L, L->rtypes[v.reg]), eq = fe_reg(L, RT(TY_BOOL, 1, 0)), k = fe_reg(L, RT(TY_I32, 1, 0));
        fe_emit(L, "const.%s %%r%d, %lld", tn, c, (long long)vals[j]);
        fe_emit(L, "eq.%s %%r%d, %%r%d, %%r%d", tn, eq, v.reg, c);
        fe_emit(L, "const.i32 %%r%d, %d", k, j);
        fe_emit(L, "select.i32 %%r%d, %%r%d, %%r%d, %%r%d", sel, k, sel, eq);
    }
    return sel;
}

/* A case value as the bytecode's case names it: the value itself, or in a
 * switch on a 64-bit value its index. */
static int32_t case_code(const fe_lower *L, int64_t x)
{
    if (!L->sw_vals)
        return (int32_t)x;
    int j = 0;
    while (j < L->sw_n && L->sw_vals[j] != x)
        j++;
    return j;
}

/* The body of a switch: runs of labels, each followed by its statements. */
static void switch_labels(fe_lower *L, fe_node *item)
{
    int64_t seen[512];
    int nseen = 0;
    fe_var *saved = L->vars;
    if (item && item->kind != N_CASE && item->kind != N_DEFAULT) {
        fe_error(L->c, item->tok, CVM_UNSUPPORTED, "statements before the first case label");
        return;
    }
    while (item && !L->c->err) {
        /* a run of labels, then statements up to the next label */
        char vals[1024];
        size_t n = 0;
        vals[0] = 0;
        bool dflt = false;
        for (; item && (item->kind == N_CASE || item->kind == N_DEFAULT); item = item->next) {
            if (item->kind == N_DEFAULT) {
                if (n) { /* case 1: default: -> case 1 falls through into default */
                    fe_emit(L, "case %s", vals);
                    fe_emit(L, "fallthrough");
                    n = 0;
                    vals[0] = 0;
                }
                dflt = true;
                continue;
            }
            int64_t a = 0, b = 0;
            if (!case_range(L, item, &a, &b))
                return;
            if (!L->sw_vals) {
                a = (int32_t)a;
                b = (int32_t)b;
            }
            if (dflt) { /* default: case 1: -> default falls into the case */
                fe_emit(L, "default");
                fe_emit(L, "fallthrough");
                dflt = false;
            }
            for (uint64_t i = 0; b >= a && i <= (uint64_t)b - (uint64_t)a; i++) {
                const int64_t x = (int64_t)((uint64_t)a + i);
                for (int j = 0; j < nseen; j++)
                    if (seen[j] == x) {
                        fe_error(L->c, fe_leftmost(item->a), CVM_SYNTAX, "duplicate case value '%lld'", (long long)x);
                        return;
                    }
                if (nseen < 512)
                    seen[nseen++] = x;
                n += (size_t)snprintf(vals + n, n < sizeof vals ? sizeof vals - n : 0, "%s%lld", n ? ", " : "",
                                      (long long)case_code(L, x));
            }
            if (n >= sizeof vals) {
                fe_error(L->c, item->tok, CVM_LIMIT, "too many case values on one label");
                return;
            }
        }
        if (dflt)
            fe_emit(L, "default");
        else
            fe_emit(L, "case %s", vals);
        fe_node *last = NULL;
        for (; item && item->kind != N_CASE && item->kind != N_DEFAULT && !L->c->err; item = item->next) {
            fe_stmt(L, item);
            last = item;
        }
        if (item && !ends_in_jump(last))
            fe_emit(L, "fallthrough");
    }
    fe_emit(L, "end");
    L->vars = saved;
}
