/*
 * parse_ns.c - namespaces in the CUDA frontend's parser: the file's
 * declared namespaces, aliases (`namespace x = a::b;`), using-directives,
 * and which declared namespace a written qualifier names.
 */
#include "parse_short.h"

#include <stdio.h>
#include <string.h>

/* ---- namespaces ----
 * Functions and function templates keep the namespace they are defined in
 * (fe_node.ns, fe_template.ns), and a call resolves among those its
 * namespace and the enclosing ones see (lower.c call_ns). Types,
 * constants and variables keep one name across namespaces: a second
 * definition of one name is an error (struct_spec, module_decl). */

void fe_p_declare_namespace(fe_ctx *c, const char *path)
{
    for (int i = 0; i < c->nns; i++)
        if (strcmp(c->nss[i], path) == 0)
            return;
    if (c->nns == 256) {
        fe_error(c, peek(c), CVM_LIMIT, "more than 256 namespaces in one file");
        return;
    }
    c->nss[c->nns++] = path;
}

/* The file's namespace that `a::b` written at peek k names, or NULL. */
static const char *namespace_at(fe_ctx *c, uint32_t k)
{
    char buf[256];
    size_t n = 0;
    for (; peek_at(c, k)->kind == TK_IDENT; k += 2) {
        const fe_tok *t = peek_at(c, k);
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%.*s", n ? "::" : "", (int)t->len,
                              t->s);
        if (n >= sizeof buf || !fe_tok_is(peek_at(c, k + 1), "::"))
            break;
    }
    return n && n < sizeof buf ? fe_p_namespace_of(c, buf) : NULL;
}

/* The length of the namespace enclosing the first n bytes of path ns
 * ("a::b" -> "a": 1, "a" -> ""): 0 at the file's. */
size_t fe_ns_parent(const char *ns, size_t n)
{
    while (n > 0 && !(n >= 2 && ns[n - 1] == ':' && ns[n - 2] == ':'))
        n--;
    return n >= 2 ? n - 2 : 0;
}

/* `namespace x = a::b;` (at its name): x:: names a::b's functions. */
void fe_p_namespace_alias(fe_ctx *c)
{
    const fe_tok *name = peek(c);
    const char *path = namespace_at(c, 2);
    if (path && c->nalias < 16) {
        c->alias_name[c->nalias] = tok_name(c, name);
        c->alias_path[c->nalias++] = path;
    }
}

/* Is namespace `outer` ("" the file's) `ns` or one enclosing it? */
bool fe_ns_encloses(const char *outer, const char *ns)
{
    const size_t n = strlen(outer);
    return !n || (strncmp(ns, outer, n) == 0 && (!ns[n] || strncmp(ns + n, "::", 2) == 0));
}

/* The declared namespace a qualifier written in namespace c->ns names
 * ("b" inside "a" is "a::b" when that exists), or NULL: not one of the
 * file's (std::, cg::, a struct). */
const char *fe_p_namespace_of(fe_ctx *c, const char *qual)
{
    for (int i = 0; i < c->nalias; i++) { /* x or x::y of namespace x = a::b */
        const size_t an = strlen(c->alias_name[i]);
        if (strncmp(qual, c->alias_name[i], an) == 0 && (!qual[an] || !strncmp(qual + an, "::", 2))) {
            const char *full = qual[an] ? fe_fmt(c, "%s%s", c->alias_path[i], qual + an) : c->alias_path[i];
            for (int j = 0; full && j < c->nns; j++)
                if (strcmp(c->nss[j], full) == 0)
                    return c->nss[j];
        }
    }
    const char *cur = c->ns ? c->ns : "";
    for (size_t n = strlen(cur);; ) {
        for (int i = 0; i < c->nns; i++) {
            const char *p = c->nss[i];
            if (n ? strncmp(p, cur, n) == 0 && strncmp(p + n, "::", 2) == 0 && strcmp(p + n + 2, qual) == 0
                  : strcmp(p, qual) == 0)
                return p;
        }
        if (!n)
            break;
        n = fe_ns_parent(cur, n);
    }
    for (int u = 0; u < c->nusing; u++) /* b of b::f with `using namespace a;` in scope: a::b */
        for (int i = 0; fe_ns_encloses(c->using_at[u], cur) && i < c->nns; i++) {
            const char *p = c->nss[i];
            const size_t un = strlen(c->using_ns[u]);
            if (strncmp(p, c->using_ns[u], un) == 0 && strncmp(p + un, "::", 2) == 0 && strcmp(p + un + 2, qual) == 0)
                return p;
        }
    return NULL;
}

/* `using a::b::f;` (a at peek): at the namespace it is written in, an
 * unqualified f names a::b's functions f too; in a function body, from
 * here to the end of the block (fe_ctx.decl_on), where it hides other f.
 * Names outside the file's namespaces (`using std::min;`) are left alone.
 * The same declaration parsed again (a template's body, per instance)
 * keeps its entry. */
void fe_p_using_decl(fe_ctx *c)
{
    char buf[256];
    size_t n = 0;
    uint32_t k = 0;
    for (; peek_at(c, k)->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 1), "::") &&
           peek_at(c, k + 2)->kind == TK_IDENT; k += 2) {
        const fe_tok *t = peek_at(c, k);
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%.*s", n ? "::" : "", (int)t->len,
                              t->s);
    }
    const char *from = n && n < sizeof buf ? fe_p_namespace_of(c, buf) : NULL;
    if (!from)
        return;
    const char *name = tok_name(c, peek_at(c, k)), *at = c->ns ? c->ns : "";
    const bool local = c->body_depth > 0;
    int i = 0;
    while (i < c->ndecl && !(c->decl_local[i] == local && !strcmp(c->decl_name[i], name) &&
                             !strcmp(c->decl_from[i], from) && !strcmp(c->decl_at[i], at)))
        i++;
    if (i == 32) {
        fe_error(c, peek(c), CVM_LIMIT, "more than 32 using-declarations of namespace members in one file");
        return;
    }
    if (i == c->ndecl) {
        c->decl_name[i] = name;
        c->decl_from[i] = from;
        c->decl_at[i] = at;
        c->decl_local[i] = local;
        c->ndecl++;
    }
    if (local)
        c->decl_on |= 1u << i;
}

void fe_p_add_directive(fe_ctx *c, const char *at, const char *ns, bool local, const fe_tok *where)
{
    int i = 0;
    while (i < c->nusing && !(c->using_local[i] == local && !strcmp(c->using_ns[i], ns) &&
                              !strcmp(c->using_at[i], at)))
        i++;
    if (i == 16) {
        fe_error(c, where, CVM_LIMIT, "more than 16 using-directives and inline namespaces in one file");
        return;
    }
    if (i == c->nusing) {
        c->using_at[i] = at;
        c->using_ns[i] = ns;
        c->using_local[i] = local;
        c->nusing++;
    }
    if (local)
        c->using_on |= (uint16_t)(1u << i);
}

/* `using namespace a::b;` (the name at peek k): a's functions are found
 * unqualified from anywhere in the file after it; in a function body, by
 * the calls written from here to the end of the block (fe_ctx.using_on). */
void fe_p_using_namespace(fe_ctx *c, uint32_t k)
{
    const char *ns = namespace_at(c, k);
    if (ns)
        fe_p_add_directive(c, c->ns ? c->ns : "", ns, c->body_depth > 0, peek_at(c, k));
}
