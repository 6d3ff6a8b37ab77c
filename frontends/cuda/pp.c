/*
 * pp.c - the CUDA frontend's preprocessor: driver, directives, includes
 * and output (the interface is pp.h; docs/cuda-preprocessor.md describes
 * the behaviour and its limits).
 *
 * The driver pulls tokens (pending macro output first, then the innermost
 * open file), runs directives, expands macros and writes the rest. The
 * writer keeps every token that comes straight from a file at its original
 * line and column (padding with newlines and spaces); when the position
 * moves to another file, backwards, or far ahead, it writes a GNU line
 * marker `# LINE "FILE"` first. Tokens from a macro expansion carry the
 * position of the outermost macro name, so a multi-line call is written on
 * its first line and the next token is placed back where it belongs.
 */
#include "pp_int.h"

#include "headers.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_NEWLINES 8   /* a bigger jump gets a line marker */
#define BUILTIN_PREFIX "<cubevm>/"

cvm_status cvm_fe_pp_error(pp *p, cvm_status st, const pp_tok *tok, const char *fmt, ...)
{
    if (p->st)
        return p->st;
    p->st = st;
    if (!p->diag)
        return st;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (tok && tok->fname) {
        cvm_diag_set(p->diag, st, "%s:%u:%u: error: %s", tok->fname, tok->line, tok->col, msg);
        snprintf(p->diag->file, sizeof p->diag->file, "%s", tok->fname);
        p->diag->line = tok->line;
        p->diag->col = tok->col;
    } else {
        cvm_diag_set(p->diag, st, "%s", msg);
    }
    return st;
}

cvm_status cvm_fe_pp_badlit(pp *p, const pp_tok *t)
{
    const char *q = memchr(t->text, '"', t->len), *a = memchr(t->text, '\'', t->len);
    char quote = !q || (a && a < q) ? '\'' : '"';
    return cvm_fe_pp_error(p, CVM_SYNTAX, t, "missing terminating %c character", quote);
}

/* ---- output ---- */

static bool put(pp *p, const char *s, size_t n)
{
    if (p->st)
        return false;
    if (p->outlen + n + 1 > p->outcap) {
        if (p->outlen + n > PP_MAX_OUTPUT) {
            cvm_fe_pp_error(p, CVM_LIMIT, NULL, "preprocessed output exceeds %u MiB",
                            PP_MAX_OUTPUT >> 20);
            return false;
        }
        size_t cap = p->outcap ? p->outcap : 4096;
        while (cap < p->outlen + n + 1)
            cap *= 2;
        if (cap > (size_t)PP_MAX_OUTPUT + 1)
            cap = (size_t)PP_MAX_OUTPUT + 1;
        char *q = p->fn(p->user, p->out, p->outcap, cap);
        if (!q) {
            cvm_fe_pp_error(p, CVM_OUT_OF_MEMORY, NULL, "out of memory for the preprocessed text");
            return false;
        }
        p->out = q;
        p->outcap = cap;
    }
    memcpy(p->out + p->outlen, s, n);
    p->outlen += n;
    p->out_col += (uint32_t)n;
    if (n)
        p->out_last = s[n - 1];
    return true;
}

static void put_newline(pp *p)
{
    put(p, "\n", 1);
    p->out_line++;
    p->out_col = 1;
    p->out_last = 0;
}

static void put_marker(pp *p, const char *fname, uint32_t line)
{
    char num[32];
    if (p->out_col > 1)
        put(p, "\n", 1);
    int n = snprintf(num, sizeof num, "# %u \"", line);
    put(p, num, (size_t)n);
    for (const char *f = fname; *f; f++) {
        if (*f == '"' || *f == '\\')
            put(p, "\\", 1);
        put(p, f, 1);
    }
    put(p, "\"\n", 2);
    p->out_fname = fname;
    p->out_line = line;
    p->out_col = 1;
    p->out_last = 0;
}

/* Moves the output to the start of (fname, line), or leaves it on that line. */
static void goto_line(pp *p, const char *fname, uint32_t line)
{
    if (fname != p->out_fname || line < p->out_line || line > p->out_line + MAX_NEWLINES)
        put_marker(p, fname, line);
    while (p->out_line < line && !p->st)
        put_newline(p);
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || (unsigned char)c >= 0x80;
}

/* Would writing t right after the last token make the lexer read
 * different tokens? (a -, - a; x, y; 1, .5; "s", _x as a literal suffix) */
static bool would_join(const pp *p, const pp_tok *t)
{
    char a = p->out_last, b = t->text[0];
    if (!a)
        return false;
    switch (p->out_last_kind) {
    case PP_IDENT:
        return word_char(b) || b == '"' || b == '\'';
    case PP_NUMBER:
        return word_char(b) || b == '.' || b == '\'' ||
               ((b == '+' || b == '-') && strchr("eEpP", a));
    case PP_PUNCT:
        if (a == '.' && b >= '0' && b <= '9')
            return true;
    {
        /* only pairs that begin a longer punctuator join ("<>" stays two tokens,
         * so template <> keeps its columns) */
        static const char *const pairs[] = {"++", "--", "->", "<<", ">>", "<=", ">=", "==", "!=",
                                            "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
                                            "^=", "##", "::", "..", ".*", "/*", "//"};
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
            if (pairs[i][0] == a && pairs[i][1] == b)
                return true;
        return false;
    }
    default:
        return word_char(b);
    }
}

static void emit(pp *p, const pp_tok *t)
{
    goto_line(p, t->fname, t->line);
    if (p->out_col < t->col) {
        static const char spaces[] = "                                ";
        while (p->out_col < t->col && !p->st) {
            uint32_t n = t->col - p->out_col;
            put(p, spaces, n < 32 ? n : 32);
        }
    } else if (p->out_col > 1 && ((t->flags & PPF_SPACE) || would_join(p, t))) {
        put(p, " ", 1);
    }
    put(p, t->text, t->len);
    p->out_last_kind = t->kind;
}

/* ---- files ---- */

static pp_src *top(pp *p) { return &p->srcs[p->nsrcs - 1]; }

static bool missing(int e) { return e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG; }

/* Reads `path`; *out NULL when it does not exist. `at` is the #include. */
static cvm_status open_file(pp *p, const char *path, const pp_tok *at, pp_file **out)
{
    char real[PATH_MAX];
    *out = NULL;
    errno = 0;
    const char *key = realpath(path, real);
    if (!key && missing(errno))
        return CVM_OK;
    if (!key)
        key = path;
    for (pp_file *f = p->files; f; f = f->next)
        if (strcmp(f->key, key) == 0) {
            *out = f;
            return CVM_OK;
        }
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) /* before opening: a FIFO would block the open */
        return S_ISDIR(sb.st_mode) ? CVM_OK /* a directory of that name: keep searching */
                                   : cvm_fe_pp_error(p, CVM_IO, at, "include file \"%s\" is not a regular file", path);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return missing(errno) ? CVM_OK
                              : cvm_fe_pp_error(p, CVM_IO, at, "cannot open include file \"%s\": %s",
                                                path, strerror(errno));
    cvm_status st = CVM_OK;
    if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode))
        goto done; /* replaced since the stat: keep searching */
    if (sb.st_size > (off_t)PP_MAX_FILE) {
        st = cvm_fe_pp_error(p, CVM_LIMIT, at, "include file \"%s\" is larger than %u MiB", path,
                             PP_MAX_FILE >> 20);
        goto done;
    }
    size_t n = (size_t)sb.st_size;
    pp_file *f = cvm_fe_pp_alloc(p, &p->perm, sizeof *f);
    char *text = cvm_fe_pp_alloc(p, &p->perm, n + 1);
    if (!f || !text) {
        st = p->st;
        goto done;
    }
    if (fread(text, 1, n, fp) != n || ferror(fp)) {
        st = cvm_fe_pp_error(p, CVM_IO, at, "cannot read include file \"%s\": %s", path,
                             errno ? strerror(errno) : "short read");
        goto done;
    }
    memset(f, 0, sizeof *f);
    f->path = cvm_fe_pp_strdup(p, &p->perm, path, strlen(path));
    f->key = key == path ? f->path : cvm_fe_pp_strdup(p, &p->perm, key, strlen(key));
    if (!f->path || !f->key) {
        st = p->st;
        goto done;
    }
    f->text = text;
    f->len = n;
    f->next = p->files;
    p->files = f;
    *out = f;
done:
    fclose(fp);
    return st;
}

static cvm_status builtin_file(pp *p, const char *name, size_t len, pp_file **out)
{
    size_t n;
    const char *text = cvm_fe_header_find(name, len, &n);
    *out = NULL;
    if (!text)
        return CVM_OK;
    for (pp_file *f = p->files; f; f = f->next)
        if (f->builtin && f->text == text) {
            *out = f;
            return CVM_OK;
        }
    pp_file *f = cvm_fe_pp_alloc(p, &p->perm, sizeof *f);
    char *path = cvm_fe_pp_alloc(p, &p->perm, sizeof BUILTIN_PREFIX + len);
    if (!f || !path)
        return p->st;
    memcpy(path, BUILTIN_PREFIX, sizeof BUILTIN_PREFIX - 1);
    memcpy(path + sizeof BUILTIN_PREFIX - 1, name, len);
    path[sizeof BUILTIN_PREFIX - 1 + len] = 0;
    memset(f, 0, sizeof *f);
    f->path = f->key = path;
    f->text = text;
    f->len = n;
    f->builtin = true;
    f->next = p->files;
    p->files = f;
    *out = f;
    return CVM_OK;
}

/* dir + name into perm; dir may be "" (then name alone). */
static const char *join(pp *p, const char *dir, size_t dlen, const char *name)
{
    size_t n = strlen(name);
    bool slash = dlen && dir[dlen - 1] != '/';
    char *s = cvm_fe_pp_alloc(p, &p->tmp, dlen + slash + n + 1);
    if (!s)
        return NULL;
    memcpy(s, dir, dlen);
    if (slash)
        s[dlen] = '/';
    memcpy(s + dlen + slash, name, n + 1);
    return s;
}

/* Searches in the order of pp.h; *out NULL when nowhere. */
static cvm_status find_include(pp *p, const char *name, bool angle, const pp_tok *at, pp_file **out)
{
    const pp_file *cur = top(p)->file;
    size_t n = strlen(name);
    cvm_status st;
    *out = NULL;
    if (angle || cur->builtin) {
        if ((st = builtin_file(p, name, n, out)) || *out)
            return st;
    }
    if (name[0] == '/')
        return open_file(p, name, at, out);
    if (!angle && !cur->builtin) {
        const char *slash = strrchr(cur->path, '/');
        const char *path = join(p, cur->path, slash ? (size_t)(slash - cur->path + 1) : 0, name);
        if (!path)
            return p->st;
        if ((st = open_file(p, path, at, out)) || *out)
            return st;
    }
    const cvm_fe_pp_opts *o = p->opts;
    for (uint32_t i = 0; o && i < o->ninclude_dirs; i++) {
        const char *path = join(p, o->include_dirs[i], strlen(o->include_dirs[i]), name);
        if (!path)
            return p->st;
        if ((st = open_file(p, path, at, out)) || *out)
            return st;
    }
    if (!angle)
        return builtin_file(p, name, n, out);
    return CVM_OK;
}

static cvm_status push_file(pp *p, pp_file *f, const pp_tok *at)
{
    if (p->nsrcs > PP_MAX_INCLUDE_DEPTH)
        return cvm_fe_pp_error(p, CVM_LIMIT, at, "#include nested more than %u deep (include cycle?)",
                               PP_MAX_INCLUDE_DEPTH);
    pp_src *s = &p->srcs[p->nsrcs++];
    memset(s, 0, sizeof *s);
    s->file = f;
    s->cond_base = p->nconds;
    cvm_fe_pp_lex_init(&s->lx, f->text, f->len, f->path);
    return CVM_OK;
}

static cvm_status end_file(pp *p)
{
    pp_src *s = top(p);
    if (p->nconds > s->cond_base) {
        const pp_cond *c = &p->conds[p->nconds - 1];
        pp_tok at = {.fname = c->fname, .line = c->line, .col = c->col};
        return cvm_fe_pp_error(p, CVM_SYNTAX, &at, "unterminated %s", c->what);
    }
    p->nsrcs--;
    return CVM_OK;
}

/* ---- directives ---- */

/* The rest of the directive line, from the current file. */
static cvm_status read_line(pp *p, pp_tok **out)
{
    pp_src *s = top(p);
    pp_tok *head = NULL, **tail = &head;
    for (;;) {
        pp_tok *t = s->ahead;
        pp_lexer before = s->lx;
        s->ahead = NULL;
        if (!t) {
            cvm_status st = cvm_fe_pp_lex(p, &s->lx, &p->tmp, &t);
            if (st)
                return st;
        } else {
            before = s->ahead_lx;
        }
        if (t->kind == PP_EOF || (t->flags & PPF_BOL)) {
            s->ahead = t;
            s->ahead_lx = before;
            break;
        }
        t->next = NULL;
        *tail = t;
        tail = &t->next;
    }
    *out = head;
    return CVM_OK;
}

/* Spelling of a token list, tokens separated as written, into tmp. */
static const char *spell(pp *p, const pp_tok *list, bool spaces)
{
    size_t n = 1;
    for (const pp_tok *t = list; t; t = t->next)
        n += t->len + 1;
    char *s = cvm_fe_pp_alloc(p, &p->tmp, n);
    if (!s)
        return NULL;
    size_t k = 0;
    for (const pp_tok *t = list; t; t = t->next) {
        if (t != list && spaces && (t->flags & PPF_SPACE))
            s[k++] = ' ';
        memcpy(s + k, t->text, t->len);
        k += t->len;
    }
    s[k] = 0;
    return s;
}

static cvm_status do_include(pp *p, const pp_tok *hash, pp_tok *rest)
{
    cvm_status st;
    pp_tok *list = rest;
    if (rest && rest->kind != PP_STRING && !cvm_fe_pp_is(rest, "<") &&
        (st = cvm_fe_pp_expand_list(p, rest, &list)))
        return st;
    const char *name = NULL;
    bool angle = false;
    if (list && list->kind == PP_STRING && list->text[0] == '"') {
        if (memchr(list->text, 0, list->len))
            return cvm_fe_pp_error(p, CVM_SYNTAX, list, "a NUL character in an #include file name");
        name = cvm_fe_pp_strdup(p, &p->tmp, list->text + 1, list->len - 2);
    } else if (list && cvm_fe_pp_is(list, "<")) {
        pp_tok *end = list->next;
        while (end && !cvm_fe_pp_is(end, ">"))
            end = end->next;
        if (end) {
            pp_tok *after = end->next, *first = list->next;
            end->next = NULL; /* `first` ... '>' */
            name = spell(p, first == end ? NULL : first, true);
            if (name && strlen(name)) /* without the '>' spell() ends with; <> spells "" */
                name = cvm_fe_pp_strdup(p, &p->tmp, name, strlen(name) - 1);
            end->next = after;
            angle = true;
        }
    }
    if (p->st)
        return p->st;
    const pp_tok *at = rest ? rest : hash;
    if (!name)
        return cvm_fe_pp_error(p, CVM_SYNTAX, at, "#include expects \"FILENAME\" or <FILENAME>");
    if (!name[0])
        return cvm_fe_pp_error(p, CVM_SYNTAX, at, "empty file name in #include");
    pp_file *f;
    if ((st = find_include(p, name, angle, at, &f)))
        return st;
    if (!f) {
        /* device libraries outside the subset: named, not just missing */
        static const struct { const char *prefix, *what; } libs[] = {
            {"cub/", "CUB"}, {"thrust/", "Thrust"}, {"curand_kernel.h", "cuRAND device functions"},
            {"curand.h", "cuRAND"}, {"cublas", "cuBLAS"}, {"cufft", "cuFFT"}, {"cusparse", "cuSPARSE"},
            {"cudnn", "cuDNN"}, {"cutlass/", "CUTLASS"}, {"cute/", "CuTe"}, {"cuda/pipeline", "cuda::pipeline"},
            {"cuda/barrier", "cuda::barrier"}, {"cooperative_groups/memcpy_async.h", "cooperative_groups::memcpy_async"},
        };
        for (size_t i = 0; angle && i < sizeof libs / sizeof libs[0]; i++)
            if (strncmp(name, libs[i].prefix, strlen(libs[i].prefix)) == 0)
                return cvm_fe_pp_error(p, CVM_UNSUPPORTED, at, "<%s> (%s) is not supported in kernels: "
                                       "cubevm has no built-in version of it", name, libs[i].what);
        return cvm_fe_pp_error(p, CVM_SYNTAX, at, "cannot find include file %c%s%c", angle ? '<' : '"',
                               name, angle ? '>' : '"');
    }
    if (f->once)
        return CVM_OK;
    return push_file(p, f, at);
}

/* #line N ["file"], and GNU markers `# N "file" flags...` */
static cvm_status do_line(pp *p, const pp_tok *hash, pp_tok *rest)
{
    pp_tok *list;
    cvm_status st = cvm_fe_pp_expand_list(p, rest, &list);
    if (st)
        return st;
    uint64_t n = 0;
    bool ok = list && list->kind == PP_NUMBER;
    for (uint32_t i = 0; ok && i < list->len; i++) {
        ok = list->text[i] >= '0' && list->text[i] <= '9';
        n = n * 10 + (uint64_t)(list->text[i] - '0');
        ok = ok && n <= INT32_MAX;
    }
    if (!ok || n == 0)
        return cvm_fe_pp_error(p, CVM_SYNTAX, list ? list : hash,
                               "#line expects a line number between 1 and 2147483647");
    pp_src *s = top(p);
    const char *fname = s->lx.fname;
    const pp_tok *ft = list->next;
    if (ft) {
        if (ft->kind != PP_STRING || ft->text[0] != '"')
            return cvm_fe_pp_error(p, CVM_SYNTAX, ft, "invalid file name \"%.*s\" in #line",
                                   (int)ft->len, ft->text);
        char *name = cvm_fe_pp_alloc(p, &p->perm, ft->len);
        if (!name)
            return p->st;
        size_t k = 0;
        for (uint32_t i = 1; i + 1 < ft->len; i++) {
            if (ft->text[i] == '\\' && i + 2 < ft->len)
                i++;
            name[k++] = ft->text[i];
        }
        name[k] = 0;
        fname = name;
    }
    /* the line after the directive becomes line n */
    int64_t delta = (int64_t)n - ((int64_t)s->lx.eol_line + 1);
    if (s->ahead) {
        s->ahead->line = (uint32_t)((int64_t)s->ahead->line - s->lx.line_delta + delta);
        s->ahead->fname = fname;
        s->ahead_lx.line_delta = delta;
        s->ahead_lx.fname = fname;
    }
    s->lx.line_delta = delta;
    s->lx.fname = fname;
    return CVM_OK;
}

static cvm_status do_pragma(pp *p, const pp_tok *hash, pp_tok *rest)
{
    if (rest && cvm_fe_pp_is(rest, "once") && !rest->next) {
        top(p)->file->once = true;
        return CVM_OK;
    }
    if (rest && cvm_fe_pp_is(rest, "unroll") && rest->next) {
        /* the unroll count may be a macro; the parser wants the number */
        cvm_status st = cvm_fe_pp_expand_list(p, rest->next, &rest->next);
        if (st)
            return st;
    }
    goto_line(p, hash->fname, hash->line);
    if (p->out_col > 1)
        put_marker(p, hash->fname, hash->line);
    while (p->out_col < hash->col && !p->st)
        put(p, " ", 1);
    put(p, "#pragma", 7);
    p->out_last_kind = PP_OTHER;
    for (const pp_tok *t = rest; t; t = t->next) {
        if (t == rest || (t->flags & PPF_SPACE))
            put(p, " ", 1);
        put(p, t->text, t->len);
    }
    put_newline(p);
    return p->st;
}

/* The next token after macro expansion (EOF at the end of the input). */
static cvm_status next_expanded(pp *p, pp_tok **out)
{
    for (;;) {
        bool expanded;
        cvm_status st = cvm_fe_pp_next(p, out);
        if (st || (*out)->kind == PP_EOF)
            return st;
        if ((st = cvm_fe_pp_expand(p, *out, &expanded)) || !expanded)
            return st;
    }
}

/* The `_Pragma("text")` operator (C99 6.10.9): the string, destringized,
 * becomes a `#pragma text` line of its own, as if written before the line
 * it appears in, so `#define UNROLL _Pragma("unroll")` works as a prefix. */
static cvm_status do_pragma_op(pp *p, const pp_tok *op)
{
    pp_tok *t[3];
    cvm_status st;
    for (int i = 0; i < 3; i++)
        if ((st = next_expanded(p, &t[i])))
            return st;
    if (!cvm_fe_pp_is(t[0], "(") || t[1]->kind != PP_STRING || t[1]->text[0] != '"' ||
        !cvm_fe_pp_is(t[2], ")"))
        return cvm_fe_pp_error(p, CVM_SYNTAX, op, "expected _Pragma(\"...\") with one plain string literal");
    char *text = cvm_fe_pp_alloc(p, &p->tmp, t[1]->len);
    if (!text)
        return p->st;
    size_t n = 0;
    for (uint32_t i = 1; i + 1 < t[1]->len; i++) {
        if (t[1]->text[i] == '\\' && (t[1]->text[i + 1] == '"' || t[1]->text[i + 1] == '\\'))
            i++;
        text[n++] = t[1]->text[i];
    }
    pp_lexer lx;
    cvm_fe_pp_lex_init(&lx, text, n, op->fname);
    pp_tok *rest = NULL, **tail = &rest;
    for (;;) {
        pp_tok *x;
        if ((st = cvm_fe_pp_lex(p, &lx, &p->tmp, &x)))
            return st;
        if (x->kind == PP_EOF)
            break;
        *tail = x, tail = &x->next;
    }
    return do_pragma(p, op, rest);
}

static cvm_status push_cond(pp *p, const pp_tok *hash, const char *what, bool value)
{
    if (p->nconds == p->capconds) {
        if (p->nconds >= PP_MAX_COND_DEPTH)
            return cvm_fe_pp_error(p, CVM_LIMIT, hash, "#if nested more than %u deep",
                                   PP_MAX_COND_DEPTH);
        uint32_t cap = p->capconds ? p->capconds * 2 : 16;
        pp_cond *c = p->fn(p->user, p->conds, p->capconds * sizeof *c, cap * sizeof *c);
        if (!c)
            return cvm_fe_pp_error(p, CVM_OUT_OF_MEMORY, NULL, "out of memory while preprocessing");
        p->conds = c;
        p->capconds = cap;
    }
    pp_cond *c = &p->conds[p->nconds++];
    *c = (pp_cond){.fname = hash->fname, .what = what, .line = hash->line, .col = hash->col,
                   .taken = value, .outer_skip = p->skipping};
    p->skipping = p->skipping || !value;
    return CVM_OK;
}

/* Value of the operand of #ifdef-like directives (`sense` false: #ifndef). */
static cvm_status ifdef_value(pp *p, const pp_tok *name, const pp_tok *rest, bool sense, bool *out)
{
    if (!rest || rest->kind != PP_IDENT)
        return cvm_fe_pp_error(p, CVM_SYNTAX, rest ? rest : name, "#%.*s expects a macro name",
                               (int)name->len, name->text);
    *out = (cvm_fe_pp_macro_find(p, rest->text, rest->len) != NULL) == sense;
    return CVM_OK;
}

/* #if #ifdef #ifndef #elif #elifdef #elifndef #else #endif */
static cvm_status conditional(pp *p, const pp_tok *hash, const pp_tok *name, pp_tok *rest)
{
    cvm_status st = CVM_OK;
    bool v = false, is_if = cvm_fe_pp_is(name, "if"), is_ifdef = cvm_fe_pp_is(name, "ifdef");
    if (is_if || is_ifdef || cvm_fe_pp_is(name, "ifndef")) {
        if (!p->skipping)
            st = is_if ? cvm_fe_pp_eval(p, rest, name, &v) : ifdef_value(p, name, rest, is_ifdef, &v);
        return st ? st : push_cond(p, hash, is_if ? "#if" : is_ifdef ? "#ifdef" : "#ifndef", v);
    }
    if (p->nconds == top(p)->cond_base)
        return cvm_fe_pp_error(p, CVM_SYNTAX, hash, "#%.*s without #if", (int)name->len, name->text);
    pp_cond *c = &p->conds[p->nconds - 1];
    if (cvm_fe_pp_is(name, "endif")) {
        p->skipping = c->outer_skip;
        p->nconds--;
        return CVM_OK;
    }
    if (c->in_else)
        return cvm_fe_pp_error(p, CVM_SYNTAX, hash, "#%.*s after #else", (int)name->len, name->text);
    if (cvm_fe_pp_is(name, "else")) {
        c->in_else = true;
        p->skipping = c->outer_skip || c->taken;
        c->taken = true;
        return CVM_OK;
    }
    if (c->outer_skip || c->taken) { /* #elif after a taken group: not evaluated */
        p->skipping = true;
        return CVM_OK;
    }
    if (cvm_fe_pp_is(name, "elif"))
        st = cvm_fe_pp_eval(p, rest, name, &v);
    else
        st = ifdef_value(p, name, rest, cvm_fe_pp_is(name, "elifdef"), &v);
    c->taken = v;
    p->skipping = !v;
    return st;
}

static bool is_conditional(const pp_tok *n)
{
    static const char *const names[] = {"if", "ifdef", "ifndef", "elif", "elifdef",
                                        "elifndef", "else", "endif"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (cvm_fe_pp_is(n, names[i]))
            return true;
    return false;
}

static cvm_status directive(pp *p, const pp_tok *hash)
{
    pp_tok *line;
    cvm_status st = read_line(p, &line);
    if (st || !line)
        return st; /* the null directive */
    pp_tok *name = line, *rest = line->next;
    if (name->kind == PP_IDENT && is_conditional(name))
        return conditional(p, hash, name, rest);
    if (p->skipping)
        return CVM_OK;
    if (name->kind == PP_NUMBER)
        return do_line(p, hash, line);
    if (cvm_fe_pp_is(name, "define"))
        return cvm_fe_pp_define(p, rest, name);
    if (cvm_fe_pp_is(name, "undef")) {
        if (!rest || rest->kind != PP_IDENT)
            return cvm_fe_pp_error(p, CVM_SYNTAX, rest ? rest : name, "#undef expects a macro name");
        cvm_fe_pp_macro_remove(p, rest->text, rest->len);
        return CVM_OK;
    }
    if (cvm_fe_pp_is(name, "include") || cvm_fe_pp_is(name, "include_next"))
        return do_include(p, hash, rest);
    if (cvm_fe_pp_is(name, "line"))
        return do_line(p, hash, rest);
    if (cvm_fe_pp_is(name, "pragma"))
        return do_pragma(p, hash, rest);
    if (cvm_fe_pp_is(name, "error")) {
        const char *msg = spell(p, rest, true);
        return msg ? cvm_fe_pp_error(p, CVM_SYNTAX, hash, "#error %s", msg) : p->st;
    }
    if (cvm_fe_pp_is(name, "warning"))
        return CVM_OK;
    return cvm_fe_pp_error(p, CVM_SYNTAX, name, "invalid preprocessing directive #%.*s", (int)name->len,
                           name->text);
}

/* ---- the driver ---- */

/* Empties tmp when nothing in it is still referenced: look-ahead tokens
 * are lexed again from their saved positions. */
static void maybe_reset_tmp(pp *p)
{
    if (p->pending || p->tmp.bytes < (1u << 20))
        return;
    for (uint32_t i = 0; i < p->nsrcs; i++)
        if (p->srcs[i].ahead) {
            p->srcs[i].lx = p->srcs[i].ahead_lx;
            p->srcs[i].ahead = NULL;
        }
    cvm_fe_pp_arena_free(p, &p->tmp);
}

/* Processes input until the file stack is back to `base` files. */
static cvm_status run(pp *p, uint32_t base)
{
    while (!p->st && p->nsrcs > base) {
        maybe_reset_tmp(p);
        pp_tok *t;
        bool expanded;
        if (cvm_fe_pp_next(p, &t))
            break;
        if (t->kind == PP_EOF) {
            end_file(p);
        } else if ((t->flags & PPF_BOL) && !(t->flags & PPF_MACRO) && t->kind == PP_PUNCT &&
                   cvm_fe_pp_is(t, "#")) {
            directive(p, t);
        } else if (p->skipping) {
            continue;
        } else if (t->kind == PP_BADLIT) {
            cvm_fe_pp_badlit(p, t);
        } else if (!cvm_fe_pp_expand(p, t, &expanded) && !expanded) {
            if (t->kind == PP_IDENT && cvm_fe_pp_is(t, "_Pragma"))
                do_pragma_op(p, t);
            else
                emit(p, t);
        }
    }
    return p->st;
}

/* Runs directive text (predefined macros, -D) that writes nothing. */
static cvm_status run_text(pp *p, const char *text, size_t len, const char *name)
{
    pp_file *f = cvm_fe_pp_alloc(p, &p->perm, sizeof *f);
    if (!f)
        return p->st;
    memset(f, 0, sizeof *f);
    f->path = f->key = name;
    f->text = text;
    f->len = len;
    f->builtin = true;
    cvm_status st = push_file(p, f, NULL);
    return st ? st : run(p, 0);
}

static const char predefined[] = "#define __CUDACC__ 1\n"
                                 "#define __NVCC__ 1\n"
                                 "#define __CUDA_ARCH__ 800\n"
                                 "#define __CUDACC_VER_MAJOR__ 12\n"
                                 "#define __CUDACC_VER_MINOR__ 0\n"
                                 "#define __CUDACC_VER_BUILD__ 0\n"
                                 "#define __cplusplus 201703L\n"
                                 "#define __CUBEVM__ 1\n";

static cvm_status define_all(pp *p)
{
    static const struct {
        const char *name;
        uint8_t kind;
    } dyn[] = {{"__FILE__", PPB_FILE}, {"__LINE__", PPB_LINE}, {"__COUNTER__", PPB_COUNTER}};
    for (size_t i = 0; i < sizeof dyn / sizeof dyn[0]; i++) {
        pp_macro *m = cvm_fe_pp_alloc(p, &p->perm, sizeof *m);
        if (!m)
            return p->st;
        memset(m, 0, sizeof *m);
        m->name = dyn[i].name;
        m->len = (uint32_t)strlen(dyn[i].name);
        m->builtin = dyn[i].kind;
        cvm_fe_pp_macro_add(p, m);
    }
    cvm_status st = run_text(p, predefined, sizeof predefined - 1, "<built-in>");
    const cvm_fe_pp_opts *o = p->opts;
    for (uint32_t i = 0; !st && o && i < o->ndefines; i++) {
        const cvm_fe_define *d = &o->defines[i];
        const char *value = d->value ? d->value : "1";
        if (!d->name || strpbrk(d->name, "\n\r") || strpbrk(value, "\n\r"))
            return cvm_fe_pp_error(p, CVM_INVALID_ARGUMENT, NULL, "-D %s: a line break in a definition",
                                   d->name ? d->name : "(null)");
        size_t n = strlen(d->name) + strlen(value) + 10;
        char *text = cvm_fe_pp_alloc(p, &p->perm, n);
        if (!text)
            return p->st;
        snprintf(text, n, "#define %s %s\n", d->name, value);
        st = run_text(p, text, strlen(text), "<command line>");
    }
    return st;
}

cvm_status cvm_fe_pp(const char *src, size_t len, const char *filename, const cvm_fe_pp_opts *opts,
                     char **out_text, size_t *out_len, cvm_diag *diag)
{
    cvm_alloc_fn fn = opts && opts->alloc ? opts->alloc : cvm_default_alloc;
    void *user = opts ? opts->alloc_user : NULL;
    if (!out_text || !out_len || !filename || (!src && len))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_fe_pp: missing argument");
    *out_text = NULL;
    *out_len = 0;
    if (len > PP_MAX_FILE)
        return cvm_diag_set(diag, CVM_LIMIT, "%s: source larger than %u MiB", filename,
                            PP_MAX_FILE >> 20);
    pp *p = cvm_bc_alloc(fn, user, sizeof *p);
    if (!p)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory while preprocessing");
    p->fn = fn;
    p->user = user;
    p->diag = diag;
    p->opts = opts;
    cvm_status st = define_all(p);
    pp_file *main_file = st ? NULL : cvm_fe_pp_alloc(p, &p->perm, sizeof *main_file);
    if (st || !main_file)
        goto done;
    memset(main_file, 0, sizeof *main_file);
    main_file->path = cvm_fe_pp_strdup(p, &p->perm, filename, strlen(filename));
    if (!main_file->path)
        goto done;
    char real[PATH_MAX];
    const char *key = realpath(filename, real);
    main_file->key = key ? cvm_fe_pp_strdup(p, &p->perm, key, strlen(key)) : main_file->path;
    if (!main_file->key)
        goto done;
    main_file->text = src ? src : "";
    main_file->len = len;
    main_file->next = p->files;
    p->files = main_file;
    put_marker(p, main_file->path, 1);
    if (push_file(p, main_file, NULL))
        goto done;
    if (opts && opts->implicit_cuda_runtime) {
        pp_file *rt;
        if (builtin_file(p, "cuda_runtime.h", 14, &rt) || push_file(p, rt, NULL))
            goto done;
    }
    if (run(p, 0))
        goto done;
    if (p->out_col > 1)
        put(p, "\n", 1);
    if (p->st)
        goto done;
    /* give back the slack so the caller frees exactly outlen + 1 bytes */
    char *text = fn(user, p->out, p->outcap, p->outlen + 1);
    if (!text) {
        cvm_fe_pp_error(p, CVM_OUT_OF_MEMORY, NULL, "out of memory for the preprocessed text");
        goto done;
    }
    text[p->outlen] = 0;
    *out_text = text;
    *out_len = p->outlen;
    p->out = NULL;
done:
    st = p->st;
    if (p->out)
        fn(user, p->out, p->outcap, 0);
    if (p->conds)
        fn(user, p->conds, p->capconds * sizeof *p->conds, 0);
    cvm_fe_pp_arena_free(p, &p->tmp);
    cvm_fe_pp_arena_free(p, &p->perm);
    cvm_bc_free(fn, user, p, sizeof *p);
    return st;
}
