/*
 * test_cuda_pp.c - the CUDA frontend's preprocessor (frontends/cuda/pp.h).
 *
 * Every expected text is written out by hand: the exact output with its
 * GNU line markers and the columns the writer keeps. Include tests write
 * their files into $TEST_TMPDIR (or a fresh directory under /tmp).
 */
#include "../frontends/cuda/pp.h"
#include "../frontends/cuda/headers.h"
#include "tap.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[512];

/* Preprocesses src as "t.cu"; returns the text (caller frees) or NULL. */
static char *run_pp(const char *src, const char *filename, const char *const *dirs, uint32_t ndirs,
                    const cvm_fe_define *defs, uint32_t ndefs, cvm_status *st, cvm_diag *d)
{
    cvm_fe_pp_opts o = {.include_dirs = dirs, .ninclude_dirs = ndirs, .defines = defs,
                        .ndefines = ndefs};
    char *out = NULL;
    size_t len = 0;
    *st = cvm_fe_pp(src, strlen(src), filename, &o, &out, &len, d);
    if (*st)
        return NULL;
    if (strlen(out) != len) {
        diag("length %zu does not match the text", len);
        return NULL;
    }
    return out;
}

static void free_text(char *t)
{
    if (t)
        cvm_bc_free(NULL, NULL, t, strlen(t) + 1);
}

static void pp_is(const char *src, const char *want, const char *name)
{
    cvm_status st;
    cvm_diag d;
    char *got = run_pp(src, "t.cu", NULL, 0, NULL, 0, &st, &d);
    if (!got)
        diag("error %d: %s", st, d.message);
    is_str(got, want, "%s", name);
    free_text(got);
}

/* Expects status st with the full message. */
static void pp_fails(const char *src, cvm_status want_st, const char *want_msg, const char *name)
{
    cvm_status st;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    char *got = run_pp(src, "t.cu", NULL, 0, NULL, 0, &st, &d);
    free_text(got);
    is_int(st, want_st, "%s: status", name);
    is_str(d.message, want_msg, "%s: message", name);
}

/* Preprocessing `len` bytes (NULs inside) fails with a message holding want. */
static void pp_bytes_fail(const char *bytes, size_t len, const char *want, const char *name)
{
    char *src = malloc(len), *out = NULL; /* exactly the bytes: no NUL after them */
    size_t n = 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_fe_pp_opts o = {0};
    cvm_status st = src ? cvm_fe_pp(memcpy(src, bytes, len), len, "t.cu", &o, &out, &n, &d) : CVM_OUT_OF_MEMORY;
    free_text(out);
    free(src);
    ok(st == CVM_SYNTAX && strstr(d.message, want), "%s: %s (got %s)", name, want, d.message);
}

static void write_file(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "wb");
    if (!f) {
        diag("cannot write %s", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

static void test_macros(void)
{
    pp_is("#define N 4\nint a = N;\n", "# 1 \"t.cu\"\n\nint a = 4;\n", "object-like macro");
    pp_is("#define SQ(x) ((x) * (x))\ny = SQ(a + 1);\n",
          "# 1 \"t.cu\"\n\ny = ((a + 1) * (a + 1));\n", "function-like macro");
    pp_is("#define F(x) [x]\nF  (1) F\n;\n", "# 1 \"t.cu\"\n\n[1]    F\n;\n",
          "function-like name without ( is left alone");
    pp_is("#define STR(x) #x\n#define XSTR(x) STR(x)\n#define N 4\nSTR(N) XSTR(N) STR( a  \"b\\n\"  'c' )\n",
          "# 1 \"t.cu\"\n\n\n\n\"N\"    \"4\"     \"a \\\"b\\\\n\\\" 'c'\"\n", "stringizing");
    pp_is("#define CAT(a, b) a ## b\n#define E\nCAT(x, 1) CAT(, y) CAT(z, ) CAT(<, <=) CAT(E, E)\n",
          "# 1 \"t.cu\"\n\n\nx1        y        z        <<=        EE\n",
          "token pasting (before expansion) and placemarkers");
    /* a pasted body token is one token: the body after it came out twice
     * before session 18 (`a##1 + 100` gave `x1 + 100 + 100`), and a second
     * ## in the body reached the compiler */
    pp_is("#define F(a) a##1 + 100\nF(x);\n", "# 1 \"t.cu\"\n\nx1 + 100;\n",
          "token pasting with a body token, then more body");
    pp_is("#define T(F) F##2(x); F##4(y);\nT(v)\n", "# 1 \"t.cu\"\n\nv2(x); v4(y);\n",
          "two pastes in one body");
    pp_is("#define x x + 1\nx;\n", "# 1 \"t.cu\"\n\nx + 1;\n", "a macro does not expand itself");
    pp_is("#define a b\n#define b a\na b\n", "# 1 \"t.cu\"\n\n\na b\n", "indirect recursion stops");
    /* the example of C11 6.10.3.5p5, in part */
    pp_is("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)\n", "# 1 \"t.cu\"\n\n\n2*9*g\n",
          "rescanning takes arguments from the text after the call");
    pp_is("#define foo a foo\n#define id(x) x\nid(foo)\n", "# 1 \"t.cu\"\n\n\na foo\n",
          "a name painted in an argument stays painted");
    pp_is("#define f(a) a + f(a)\nf(f(1))\n", "# 1 \"t.cu\"\n\n1 + f(1) + f(1 + f(1))\n",
          "nested calls of a self-referencing macro");
    pp_is("#define P(fmt, ...) pr(fmt, __VA_ARGS__)\n#define Q(fmt, ...) pr(fmt, ##__VA_ARGS__)\n"
          "P(\"x\", 1, (2, 3)) Q(\"y\") Q(\"z\", 4)\n",
          "# 1 \"t.cu\"\n\n\npr(\"x\", 1, (2, 3)) pr(\"y\") pr(\"z\", 4)\n", "variadic macros");
    pp_is("#define N 3\n#undef N\nN\n", "# 1 \"t.cu\"\n\n\nN\n", "#undef");
    pp_is("#define M(a,b) a+b\nx = M(1,\n      2) + y;\nz\n",
          "# 1 \"t.cu\"\n\nx = 1+2\n         + y;\nz\n",
          "multi-line call written on its first line, what follows in place");
    pp_is("#define L __LINE__ __FILE__\nL\n  __LINE__\n", "# 1 \"t.cu\"\n\n2 \"t.cu\"\n  3\n",
          "__LINE__ and __FILE__");
    pp_is("#define Q(x) x\nQ(\"N(\" 'N') \"N\"\n", "# 1 \"t.cu\"\n\n\"N(\" 'N'    \"N\"\n",
          "literals are not expanded");
    pp_is("#define M -\n-M M-\n", "# 1 \"t.cu\"\n\n- - - -\n", "expansions never join tokens");
    pp_is("#define F(a) a.x a.5 a+1\nF(1) F(y) F(1e)\n",
          "# 1 \"t.cu\"\n\n1 .x 1 .5 1+1 y.x y.5 y+1 1e .x 1e .5 1e +1\n",
          "a space only where the tokens would join");
    pp_is("#define IDX (blockIdx.x * blockDim.x)\nint i = IDX;\n",
          "# 1 \"t.cu\"\n\nint i = (blockIdx.x * blockDim.x);\n", "member access stays compact");
    pp_is("#define A 1\r\n#if A\r\nA\r\n#endif\r\n", "# 1 \"t.cu\"\n\n\n1\n", "CRLF line ends");
    pp_is("#define H <climits>\n#include H\nINT_MAX\n", "# 1 \"t.cu\"\n\n\n2147483647\n",
          "#include MACRO");
    pp_is("#if defined(__CUDACC__) && defined __NVCC__ && __CUDA_ARCH__ == 800 && __cplusplus == "
          "201703L\nok\n#endif\n",
          "# 1 \"t.cu\"\n\nok\n", "predefined macros");
}

static void test_conditionals(void)
{
    pp_is("#if 1 + 2 * 3 == 7 && (-1 < 0) && !(5 % 3 - 2) && (1 << 4) == 16\na\n#endif\n",
          "# 1 \"t.cu\"\n\na\n", "arithmetic and precedence");
    pp_is("#if -1 > 0u\na\n#endif\n#if 0xffffffffffffffff == -1\nb\n#endif\n"
          "#if 'a' == 97 && '\\n' == 10 && '\\377' < 0 && '\\x41' == 65\nc\n#endif\n",
          "# 1 \"t.cu\"\n\na\n\n\nb\n\n\nc\n", "unsigned conversion, char literals");
    pp_is("#if 0 && 1 / 0\n#elif 1 || 1 / 0\nx\n#endif\n#if 1 ? 2 : 1 / 0\ny\n#endif\n",
          "# 1 \"t.cu\"\n\n\nx\n\n\ny\n", "short circuit skips division by zero");
    pp_is("#define A 2\n#if A == 1\none\n#elif A == 2\n#ifdef A\n#if B\nb\n#else\ntwo\n#endif\n#endif\n"
          "#elif 1\nlate\n#else\nnever\n#endif\n",
          "# 1 \"t.cu\"\n\n\n\n\n\n\n\n\ntwo\n", "nested #if/#elif/#else");
    pp_is("#ifndef G\n#define G\n#endif\n#ifdef G\ng\n#endif\n#if !defined(H) && defined G && "
          "UNKNOWN == 0 && true\nh\n#endif\n",
          "# 1 \"t.cu\"\n\n\n\n\ng\n\n\nh\n", "#ifdef, #ifndef, defined, unknown names");
    pp_is("#if 0\n#bogus ' unterminated \"\n#if 1/0\n#endif\n#else\nz\n#endif\n",
          "# 1 \"t.cu\"\n\n\n\n\n\nz\n", "skipped groups are not checked");
    pp_is("#if 0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n#endif\nx\n", "# 1 \"t.cu\"\n# 13 \"t.cu\"\nx\n",
          "a long skip gets a line marker");
}

static void test_lines(void)
{
    pp_is("int a = 1 + \\\n  2;\nb\n", "# 1 \"t.cu\"\nint a = 1 +\n  2;\nb\n",
          "continuation keeps positions");
    pp_is("#define LONG(x) \\\n  x + \\\n  x\nLONG(1)\nc\n", "# 1 \"t.cu\"\n\n\n\n1 + 1\nc\n",
          "continued #define");
    pp_is("a /* one\ntwo */ b // three\nc\n", "# 1 \"t.cu\"\na\n       b\nc\n",
          "comments keep line counts");
    pp_is("#line 100 \"other.cu\"\nx\n#line 7\ny\n",
          "# 1 \"t.cu\"\n# 100 \"other.cu\"\nx\n# 7 \"other.cu\"\ny\n", "#line");
    pp_is("#define U 8\n  #pragma unroll U\n#pragma nv_diag_suppress 177\nfor\n",
          "# 1 \"t.cu\"\n\n  #pragma unroll 8\n#pragma nv_diag_suppress 177\nfor\n",
          "#pragma lines pass through");
    pp_is("#define UNROLL _Pragma(\"unroll\")\n#define P(x) _Pragma(#x)\nx; UNROLL for\n"
          "P(unroll 4) while _Pragma(\"message(\\\"hi\\\")\") y\n",
          "# 1 \"t.cu\"\n\n\nx;\n# 3 \"t.cu\"\n   #pragma unroll\n# 3 \"t.cu\"\n          for\n"
          "#pragma unroll 4\n# 4 \"t.cu\"\n            while\n# 4 \"t.cu\"\n"
          "                  #pragma message(\"hi\")\n# 4 \"t.cu\"\n                                             y\n",
          "_Pragma: its own #pragma line, following tokens keep line and column");
}

static void test_errors(void)
{
    pp_fails("\n  #if 1\nx\n", CVM_SYNTAX, "t.cu:2:3: error: unterminated #if", "unterminated #if");
    pp_fails("#ifdef A\n#else\n#else\n#endif\n", CVM_SYNTAX, "t.cu:3:1: error: #else after #else",
             "#else after #else");
    pp_fails("a\n _Pragma(unroll) for\n", CVM_SYNTAX,
             "t.cu:2:2: error: expected _Pragma(\"...\") with one plain string literal", "_Pragma without a string");
    pp_fails("_Pragma(\"unroll\"", CVM_SYNTAX,
             "t.cu:1:1: error: expected _Pragma(\"...\") with one plain string literal", "_Pragma at the end of the input");
    pp_fails("#endif\n", CVM_SYNTAX, "t.cu:1:1: error: #endif without #if", "#endif without #if");
    pp_fails("x\n#error stop  here \"now\"\n", CVM_SYNTAX, "t.cu:2:1: error: #error stop here \"now\"",
             "#error");
    pp_fails("# foo bar\n", CVM_SYNTAX, "t.cu:1:3: error: invalid preprocessing directive #foo",
             "bad directive");
    pp_fails("#include \"nope.h\"\n", CVM_SYNTAX, "t.cu:1:10: error: cannot find include file \"nope.h\"",
             "missing include");
    pp_fails("#include <nope.h>\n", CVM_SYNTAX, "t.cu:1:10: error: cannot find include file <nope.h>",
             "missing <include>");
    pp_fails("#define F(a, b) a\nF(1)\n", CVM_SYNTAX,
             "t.cu:2:1: error: macro \"F\" requires 2 arguments, but only 1 given", "too few arguments");
    pp_fails("#define F(a) a\n  F(1, 2)\n", CVM_SYNTAX,
             "t.cu:2:3: error: macro \"F\" passed 2 arguments, but takes just 1", "too many arguments");
    pp_fails("#define F(a) a\nF(1\n", CVM_SYNTAX,
             "t.cu:2:1: error: unterminated argument list invoking macro \"F\"", "unterminated call");
    pp_fails("#if 1 / (2 - 2)\n#endif\n", CVM_SYNTAX, "t.cu:1:7: error: division by zero in #if",
             "division by zero");
    pp_fails("#if 1.5\n#endif\n", CVM_SYNTAX,
             "t.cu:1:5: error: floating constant in preprocessor expression", "float in #if");
    pp_fails("#if (1\n#endif\n", CVM_SYNTAX, "t.cu:1:5: error: missing ')' in expression",
             "missing paren");
    pp_fails("#define C(a, b) a ## b\nC(/, /)\n", CVM_SYNTAX,
             "t.cu:2:1: error: pasting \"/\" and \"/\" does not give a valid preprocessing token",
             "invalid paste");
    pp_fails("#define S(a) #b\n", CVM_SYNTAX, "t.cu:1:14: error: '#' is not followed by a macro parameter",
             "# without parameter");
    pp_fails("#define V(a) __VA_ARGS__\n", CVM_SYNTAX,
             "t.cu:1:14: error: __VA_ARGS__ can only appear in the expansion of a variadic macro",
             "__VA_ARGS__ outside a variadic macro");
    pp_fails("#define F(a) a\nF(\n#define X\n)\n", CVM_SYNTAX,
             "t.cu:3:1: error: preprocessing directives inside the arguments of macro \"F\" are not supported",
             "directive inside macro arguments");
    pp_fails("#if 1 +\n#endif\n", CVM_SYNTAX, "t.cu:1:2: error: #if expression ends unexpectedly",
             "incomplete #if expression");
    pp_fails("#if 2 3\n#endif\n", CVM_SYNTAX,
             "t.cu:1:7: error: missing binary operator before token \"3\"", "two operands");
    pp_fails("#line 0\n", CVM_SYNTAX,
             "t.cu:1:7: error: #line expects a line number between 1 and 2147483647", "#line 0");
    pp_fails("x /* open\n", CVM_SYNTAX, "t.cu:1:3: error: unterminated comment", "unterminated comment");
    pp_fails("char c = 'a;\n", CVM_SYNTAX, "t.cu:1:10: error: missing terminating ' character",
             "unterminated char literal");
}

static void test_includes(void)
{
    char sub[600], inc1[600], inc2[600], mainf[600];
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    snprintf(inc1, sizeof inc1, "%s/inc1", tmpdir);
    snprintf(inc2, sizeof inc2, "%s/inc2", tmpdir);
    mkdir(sub, 0700);
    mkdir(inc1, 0700);
    mkdir(inc2, 0700);
    write_file("sub/local.h", "local_here\n");
    write_file("inc1/local.h", "local_inc1\n");
    write_file("inc1/both.h", "both_inc1\n");
    write_file("inc2/both.h", "both_inc2\n");
    write_file("inc2/only2.h", "#pragma once\nonly2 __FILE__ __LINE__\n");
    write_file("inc1/cuda_runtime.h", "user_runtime\n");
    write_file("inc1/cycle.h", "#include \"cycle.h\"\n");
    snprintf(mainf, sizeof mainf, "%s/sub/main.cu", tmpdir);
    const char *dirs[] = {inc1, inc2};
    const char *src = "#include \"local.h\"\n#include \"both.h\"\n#include <only2.h>\n"
                      "#include \"only2.h\"\n#include <climits>\nend\n";
    cvm_status st;
    cvm_diag d;
    char *got = run_pp(src, mainf, dirs, 2, NULL, 0, &st, &d);
    char want[4096];
    snprintf(want, sizeof want,
             "# 1 \"%s\"\n# 1 \"%s/local.h\"\nlocal_here\n# 1 \"%s/both.h\"\nboth_inc1\n"
             "# 2 \"%s/only2.h\"\nonly2 \"%s/only2.h\" 2\n# 6 \"%s\"\nend\n",
             mainf, sub, inc1, inc2, inc2, mainf);
    if (!got)
        diag("error: %s", d.message);
    is_str(got, want, "include search order, #pragma once, markers on entry and return");
    free_text(got);

    got = run_pp("#include \"cuda_runtime.h\"\n#include <cycle.h>\n", mainf, dirs, 1, NULL, 0, &st, &d);
    free_text(got);
    is_int(st, CVM_LIMIT, "include cycle: CVM_LIMIT");
    char wantmsg[1024];
    snprintf(wantmsg, sizeof wantmsg, "%s/cycle.h:1:10: error: #include nested more than 64 deep (include cycle?)", inc1);
    is_str(d.message, wantmsg, "include cycle: message names the position");

    /* quote form finds the user's file first; the built-in only by <> */
    got = run_pp("#include \"cuda_runtime.h\"\n", mainf, dirs, 1, NULL, 0, &st, &d);
    snprintf(want, sizeof want, "# 1 \"%s\"\n# 1 \"%s/cuda_runtime.h\"\nuser_runtime\n", mainf, inc1);
    is_str(got, want, "\"...\" searches -I before the built-ins");
    free_text(got);

    /* an unreadable include: a directory cannot be read as a file but is skipped */
    write_file("inc2/x.h", "x_from_inc2\n");
    char dirx[700];
    snprintf(dirx, sizeof dirx, "%s/x.h", inc1);
    mkdir(dirx, 0700);
    got = run_pp("#include <x.h>\n", mainf, dirs, 2, NULL, 0, &st, &d);
    snprintf(want, sizeof want, "# 1 \"%s\"\n# 1 \"%s/x.h\"\nx_from_inc2\n", mainf, inc2);
    is_str(got, want, "a directory with the header's name is passed over");
    free_text(got);

    write_file("inc1/open.h", "\n#ifdef X\n");
    got = run_pp("#include <open.h>\n", mainf, dirs, 1, NULL, 0, &st, &d);
    free_text(got);
    snprintf(wantmsg, sizeof wantmsg, "%s/open.h:2:1: error: unterminated #ifdef", inc1);
    is_str(d.message, wantmsg, "unterminated #ifdef in an include names its position");
    snprintf(want, sizeof want, "%s/open.h", inc1);
    ok(st == CVM_SYNTAX && strcmp(d.file, want) == 0 && d.line == 2 && d.col == 1,
       "diag file/line/col are filled");

    /* the fuzzer's: <> was a negative-size memcpy, a FIFO blocked the open forever, a NUL cut
     * the name short */
    pp_fails("#include <>\n", CVM_SYNTAX, "t.cu:1:10: error: empty file name in #include", "#include <>");
    pp_fails("#define F(x) <x>\n#include F()\n", CVM_SYNTAX, "t.cu:2:10: error: empty file name in #include",
             "#include of a macro spelling <>");
    static const char nul_angle[] = "#include <\0x>\n", nul_quote[] = "#include \"a\0b.h\"\n";
    pp_bytes_fail(nul_angle, sizeof nul_angle - 1, "empty file name in #include", "#include <NUL x>");
    pp_bytes_fail(nul_quote, sizeof nul_quote - 1, "a NUL character in an #include file name", "#include \"a NUL b.h\"");
    char fifo[700];
    snprintf(fifo, sizeof fifo, "%s/fifo.h", inc1);
    if (mkfifo(fifo, 0600) == 0) {
        got = run_pp("#include <fifo.h>\n", mainf, dirs, 1, NULL, 0, &st, &d);
        free_text(got);
        snprintf(wantmsg, sizeof wantmsg, "include file \"%s\" is not a regular file", fifo);
        ok(st == CVM_IO && strstr(d.message, wantmsg), "#include of a FIFO is an error, not a hang (%s)", d.message);
        unlink(fifo);
    } else {
        skip("mkfifo failed");
    }

    const cvm_fe_define bad[] = {{"B", "1\n#include <x>"}};
    got = run_pp("B\n", "t.cu", NULL, 0, bad, 1, &st, &d);
    free_text(got);
    is_int(st, CVM_INVALID_ARGUMENT, "-D value with a line break is refused");

    const cvm_fe_define defs[] = {{"W", NULL}, {"V", "7 + 1"}, {"F(x)", "x*2"}};
    got = run_pp("W V F(3)\n", "t.cu", NULL, 0, defs, 3, &st, &d);
    is_str(got, "# 1 \"t.cu\"\n1 7 + 1 3*2\n", "-D definitions");
    free_text(got);
}

static void test_builtin_headers(void)
{
    for (uint32_t i = 0; i < cvm_fe_header_count(); i++) {
        char src[256];
        const char *name = cvm_fe_header_name(i);
        snprintf(src, sizeof src, "#include <%s>\n#include <%s>\nend\n", name, name);
        cvm_status st;
        cvm_diag d;
        char *got = run_pp(src, "t.cu", NULL, 0, NULL, 0, &st, &d);
        ok(got != NULL, "<%s> includes cleanly twice", name);
        if (!got)
            diag("%s", d.message);
        free_text(got);
    }
    pp_is("#include <climits>\n#include <cfloat>\n#include <cmath>\n#include <math_constants.h>\n"
          "#include <cassert>\nINT_MAX UINT_MAX LLONG_MIN FLT_MAX\nINFINITY NAN CUDART_PI_F CUDART_INF_F M_PI\n"
          "assert(i < n);\n#define NDEBUG\n#include <assert.h>\nassert(0);\n",
          "# 1 \"t.cu\"\n\n\n\n\n\n"
          "2147483647 4294967295U (-9223372036854775807LL - 1LL) 3.40282346638528859812e+38F\n"
          "__builtin_inff() __builtin_nanf(\"\") 3.141592654f __int_as_float(0x7f800000) "
          "3.14159265358979323846\n"
          "__cvm_assert((i < n), \"i < n\", \"t.cu\", 8);\n\n\n((void)0);\n",
          "macros of the built-in headers; assert and NDEBUG");
}

static void test_implicit_runtime(void)
{
    cvm_fe_pp_opts o = {.implicit_cuda_runtime = 1};
    const char *src = "INFINITY\n";
    char *out = NULL;
    size_t len = 0;
    cvm_diag d;
    cvm_status st = cvm_fe_pp(src, strlen(src), "t.cu", &o, &out, &len, &d);
    is_int(st, CVM_OK, "implicit <cuda_runtime.h>");
    const char *head = "# 1 \"t.cu\"\n# 3 \"<cubevm>/stddef.h\"\ntypedef unsigned long size_t;\n";
    const char *tail = "\n# 1 \"t.cu\"\n__builtin_inff()\n";
    ok(out && strncmp(out, head, strlen(head)) == 0, "the header comes first");
    ok(out && len > strlen(tail) && strcmp(out + len - strlen(tail), tail) == 0,
       "then the source, from its line 1");
    if (out)
        cvm_bc_free(NULL, NULL, out, len + 1);
}

/* An allocator that fails after `budget` allocations and counts live bytes. */
typedef struct counting {
    long budget;
    size_t live;
} counting;

static void *counting_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counting *c = user;
    if (new_size == 0) {
        c->live -= old_size;
        free(ptr);
        return NULL;
    }
    if (c->budget-- <= 0)
        return NULL;
    void *q = realloc(ptr, new_size);
    if (q)
        c->live += new_size - old_size;
    return q;
}

static void test_out_of_memory(void)
{
    const char *src = "#include <cuda_runtime.h>\n#define F(a, ...) a + F(__VA_ARGS__)\n"
                      "#if defined(F) && INT_MAX > 0\nF(1, 2, 3) FLT_MAX\n#endif\n";
    int clean = 1, failed_right = 1;
    long n;
    for (n = 0; n < 10000; n++) {
        counting c = {n, 0};
        cvm_fe_pp_opts o = {.alloc = counting_alloc, .alloc_user = &c};
        char *out = NULL;
        size_t len = 0;
        cvm_diag d;
        cvm_status st = cvm_fe_pp(src, strlen(src), "t.cu", &o, &out, &len, &d);
        if (st == CVM_OK) {
            counting_alloc(&c, out, len + 1, 0);
            clean &= c.live == 0;
            break;
        }
        failed_right &= st == CVM_OUT_OF_MEMORY && out == NULL;
        clean &= c.live == 0;
    }
    ok(n > 0 && n < 10000, "allocation failures swept (%ld allocations)", n);
    ok(failed_right, "every failed allocation gives CVM_OUT_OF_MEMORY");
    ok(clean, "nothing leaks, on success or failure");
}

int main(void)
{
    const char *t = getenv("TEST_TMPDIR");
    if (t && *t) {
        snprintf(tmpdir, sizeof tmpdir, "%s/pp", t);
        mkdir(tmpdir, 0700);
    } else {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/cubevm-pp-XXXXXX");
        if (!mkdtemp(tmpdir)) {
            printf("Bail out! cannot make a temporary directory\n");
            return 1;
        }
    }
    test_macros();
    test_conditionals();
    test_lines();
    test_errors();
    test_includes();
    test_builtin_headers();
    test_implicit_runtime();
    test_out_of_memory();
    return done_testing();
}
