/*
 * llvm.c - the native tier's LLVM (jit/llvm.h): LLVM 14 loaded at run
 * time, and the process's one ORC JIT for the host CPU.
 */
#include "llvm.h"
#include "backend.h"
#include "../vm/isa.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cvm_llvm_api cvm_llvm;
static void *llvm_lib;
static char llvm_name[256]; /* the library's name or path, as loaded */

#define LLVM_STR2(x) #x
#define LLVM_STR(x) LLVM_STR2(x)

static bool load_llvm(char *why, size_t n)
{
    if (llvm_lib)
        return true;
    const char *lib = getenv("CUBEVM_LLVM_LIB"); /* another path to LLVM 14 */
    if (!lib || !*lib)
        lib = CVM_LLVM_SONAME;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, n, "LLVM is not available: %s", e ? e : lib);
        return false;
    }
    snprintf(llvm_name, sizeof llvm_name, "%s", lib);
    struct {
        const char *name;
        void *slot; /* the address of a member of cvm_llvm */
    } fns[] = {
#define LLVM_ENTRY(f) {"LLVM" #f, &cvm_llvm.f},
        LLVM_API(LLVM_ENTRY)
#ifdef LLVM_NATIVE_TARGET
        {LLVM_STR(LLVM_NATIVE_TARGETINFO), &cvm_llvm.target_info},
        {LLVM_STR(LLVM_NATIVE_TARGET), &cvm_llvm.target},
        {LLVM_STR(LLVM_NATIVE_TARGETMC), &cvm_llvm.target_mc},
        {LLVM_STR(LLVM_NATIVE_ASMPRINTER), &cvm_llvm.asm_printer},
#endif
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        void *f = dlsym(h, fns[i].name);
        if (!f) {
            snprintf(why, n, "LLVM is not usable: %s has no %s", lib, fns[i].name);
            dlclose(h);
            memset(&cvm_llvm, 0, sizeof cvm_llvm);
            return false;
        }
        memcpy(fns[i].slot, &f, sizeof f); /* POSIX: a function's address as void * */
    }
    if (!llvm.target || !llvm.asm_printer) {
        snprintf(why, n, "LLVM has no code generator for this host");
        dlclose(h);
        return false;
    }
    llvm_lib = h;
    return true;
}

/* ---- the process's JIT ---- */

LLVMOrcLLJITRef cvm_llvm_jit;
bool cvm_llvm_avx512, cvm_llvm_fma;
static char host_cpu[64], *host_features; /* host_features: LLVM's string, or NULL */

/* Whether LLVM's feature string ("+sse2,-fma4,+fma,...") enables name:
 * whole entries only (fma is not fma4). */
static bool has_feature(const char *features, const char *name)
{
    const size_t n = strlen(name);
    for (const char *f = features; f && *f;) {
        const char *end = strchr(f, ',');
        const size_t len = end ? (size_t)(end - f) : strlen(f);
        if (len == n + 1 && f[0] == '+' && !strncmp(f + 1, name, n))
            return true;
        f = end ? end + 1 : NULL;
    }
    return false;
}

LLVMTargetMachineRef cvm_llvm_host_machine(void)
{
    char *triple = llvm.GetDefaultTargetTriple(), *err = NULL;
    LLVMTargetRef t;
    LLVMTargetMachineRef tm = NULL;
    if (!llvm.GetTargetFromTriple(triple, &t, &err))
        tm = llvm.CreateTargetMachine(t, triple, host_cpu, host_features ? host_features : "",
                                     LLVMCodeGenLevelDefault,
                                     LLVMRelocDefault, LLVMCodeModelJITDefault);
    llvm.DisposeMessage(err);
    llvm.DisposeMessage(triple);
    return tm;
}

/* The JIT's asynchronous errors (a symbol it cannot find) come here, not
 * to stderr: the library prints nothing; the compile that waits for the
 * code fails with its own message, this one appended. */
static char session_error[256];

void cvm_llvm_error_text(LLVMErrorRef e, char *why, size_t n, const char *what)
{
    char *m = llvm.GetErrorMessage(e);
    snprintf(why, n, "%s: %s", what, m);
    llvm.DisposeErrorMessage(m);
    if (session_error[0]) {
        size_t k = strlen(why);
        snprintf(why + k, n - k, " (%s)", session_error);
        session_error[0] = 0;
    }
}

static void report(void *ctx, LLVMErrorRef e)
{
    (void)ctx;
    char *m = llvm.GetErrorMessage(e);
    snprintf(session_error, sizeof session_error, "%s", m);
    llvm.DisposeErrorMessage(m);
}

/* The only host symbols native code may call (the tier's helpers are
 * called at their addresses): what LLVM lowers block stores and copies
 * to, fma/fmaf where the CPU has no fused multiply-add, and rint/rintf
 * where it has no SSE4.1 rounding (CUBEVM_ISA=x86-64); libm's are exact. */
static int host_symbol(void *ctx, LLVMOrcSymbolStringPoolEntryRef sym)
{
    (void)ctx;
    const char *s = llvm.OrcSymbolStringPoolEntryStr(sym);
    return !strcmp(s, "memset") || !strcmp(s, "memcpy") || !strcmp(s, "memmove") ||
           !strcmp(s, "fma") || !strcmp(s, "fmaf") || !strcmp(s, "rint") || !strcmp(s, "rintf");
}

bool cvm_llvm_start(char *why, size_t n)
{
    if (cvm_llvm_jit)
        return true;
    if (!load_llvm(why, n))
        return false;
    llvm.target_info();
    llvm.target();
    llvm.target_mc();
    llvm.asm_printer();
    if (host_features)
        llvm.DisposeMessage(host_features);
    host_features = NULL;
    /* CUBEVM_ISA forces the interpreter's variant (vm/isa.c); native code
     * follows it, for that level's generic CPU (LLVM knows x86-64,
     * x86-64-v3 and x86-64-v4 by those names), so an AVX-512 host runs
     * and tests the code an AVX2 or SSE2 host would get. */
    const char *forced = getenv("CUBEVM_ISA");
    unsigned level;
    if (forced && *forced && cvm_vm_isa_current(&level, NULL) == CVM_OK &&
        strcmp(cvm_vm_isa_name(level), "native") != 0) {
        snprintf(host_cpu, sizeof host_cpu, "%s", cvm_vm_isa_name(level));
        cvm_llvm_avx512 = level == CVM_VM_ISA_V4;
        cvm_llvm_fma = level >= CVM_VM_ISA_V3;
    } else {
        char *cpu = llvm.GetHostCPUName();
        snprintf(host_cpu, sizeof host_cpu, "%s", cpu);
        llvm.DisposeMessage(cpu);
        host_features = llvm.GetHostCPUFeatures();
        cvm_llvm_avx512 = has_feature(host_features, "avx512bw") && has_feature(host_features, "avx512dq");
        cvm_llvm_fma = has_feature(host_features, "fma");
    }
    LLVMTargetMachineRef tm = cvm_llvm_host_machine();
    if (!tm) {
        snprintf(why, n, "LLVM has no target machine for this host");
        return false;
    }
    LLVMOrcLLJITBuilderRef b = llvm.OrcCreateLLJITBuilder();
    llvm.OrcLLJITBuilderSetJITTargetMachineBuilder(
        b, llvm.OrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    LLVMErrorRef e = llvm.OrcCreateLLJIT(&cvm_llvm_jit, b);
    if (e) {
        cvm_llvm_error_text(e, why, n, "LLVM's JIT did not start");
        cvm_llvm_jit = NULL;
        return false;
    }
    llvm.OrcExecutionSessionSetErrorReporter(llvm.OrcLLJITGetExecutionSession(cvm_llvm_jit), report, NULL);
    LLVMOrcDefinitionGeneratorRef gen = NULL;
    e = llvm.OrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, llvm.OrcLLJITGetGlobalPrefix(cvm_llvm_jit),
                                                             host_symbol, NULL);
    if (e) {
        cvm_llvm_error_text(e, why, n, "LLVM's JIT cannot see the C library");
        LLVMErrorRef e2 = llvm.OrcDisposeLLJIT(cvm_llvm_jit);
        if (e2)
            llvm.ConsumeError(e2);
        cvm_llvm_jit = NULL; /* started again at the next compile */
        return false;
    }
    llvm.OrcJITDylibAddGenerator(llvm.OrcLLJITGetMainJITDylib(cvm_llvm_jit), gen);
    return true;
}

bool cvm_jit_backend_ready(char *why, size_t n)
{
    if (!cvm_llvm_start(why, n))
        return false;
    snprintf(why, n, "LLVM 14 (%s) for %s", llvm_name, host_cpu);
    return true;
}
