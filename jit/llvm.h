/*
 * llvm.h - LLVM 14's C API as the native tier uses it (jit/llvm.c loads
 * it, jit/native.c generates code with it) and the process's one JIT.
 */
#ifndef CVM_JIT_LLVM_H
#define CVM_JIT_LLVM_H

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <stdbool.h>
#include <stddef.h>

/*
 * libcubevm does not link LLVM: the first compile dlopens its shared
 * library (RTLD_LOCAL) and looks up the C API functions listed here.
 * So a host that has its own LLVM in the process (Mesa's lavapipe or PoCL
 * bring LLVM 15) keeps it: linked in, LLVM 14's C++ symbols took the
 * place of theirs (PoCL crashed in `make bench`); and a machine without
 * libLLVM-14 runs everything interpreted, the native tier saying why.
 * The header's prototypes give each pointer its type. */
#define LLVM_API(X) \
    X(AddCallSiteAttribute) X(AddCase) X(AddFunction) X(AddIncoming) X(AppendBasicBlockInContext) X(BuildAShr) X(BuildAdd) \
    X(BuildAlloca) X(BuildAnd) X(BuildBitCast) X(BuildBr) X(BuildCall2) X(BuildCondBr) \
    X(BuildExtractElement) X(BuildFAdd) X(BuildFNeg) X(BuildFCmp) X(BuildFDiv) X(BuildFMul) X(BuildFPExt) X(BuildFreeze) \
    X(BuildFPToUI) X(BuildFPTrunc) X(BuildFSub) X(BuildGEP2) X(BuildICmp) X(BuildInsertElement) X(BuildIntToPtr) \
    X(BuildLShr) X(BuildLoad2) X(BuildMul) X(BuildNSWAdd) X(BuildNUWAdd) X(BuildNot) X(BuildOr) X(BuildPhi) X(BuildPtrToInt) X(BuildRet) \
    X(BuildSExt) X(BuildSIToFP) X(BuildSelect) X(BuildShl) X(BuildShuffleVector) X(BuildStore) \
    X(BuildSub) X(BuildSwitch) X(BuildTrunc) X(BuildUDiv) X(BuildUIToFP) X(BuildURem) X(BuildXor) \
    X(BuildZExt) X(ConstBitCast) X(ConstInt) X(ConstIntToPtr) X(ConstNull) X(ConstVector) \
    X(ConsumeError) X(CopyStringRepOfTargetData) X(CreateBuilderInContext) X(CreateEnumAttribute) \
    X(CreatePassBuilderOptions) X(CreateTargetDataLayout) X(CreateTargetMachine) \
    X(DisposeBuilder) X(DisposeErrorMessage) X(DisposeMessage) X(DisposeModule) \
    X(DisposePassBuilderOptions) X(DisposeTargetData) X(DisposeTargetMachine) \
    X(DoubleTypeInContext) X(DumpModule) X(FloatTypeInContext) X(FunctionType) \
    X(GetDefaultTargetTriple) X(GetElementType) X(GetEntryBasicBlock) X(GetEnumAttributeKindForName) X(GetErrorMessage) \
    X(GetAllocatedType) X(GetFirstInstruction) X(GetHostCPUFeatures) X(GetHostCPUName) X(GetInsertBlock) \
    X(GetIntrinsicDeclaration) X(GetMDKindIDInContext) X(GetNextInstruction) X(GetParam) X(GetTargetFromTriple) X(GetUndef) \
    X(Int16TypeInContext) X(Int1TypeInContext) X(Int32TypeInContext) X(Int64TypeInContext) \
    X(Int8TypeInContext) X(IntTypeInContext) X(IntrinsicGetType) X(IsAAllocaInst) X(LookupIntrinsicID) X(MDNodeInContext) \
    X(ModuleCreateWithNameInContext) X(OrcCreateDynamicLibrarySearchGeneratorForProcess) \
    X(OrcCreateLLJIT) X(OrcCreateLLJITBuilder) X(OrcCreateNewThreadSafeContext) \
    X(OrcCreateNewThreadSafeModule) X(OrcDisposeLLJIT) X(OrcDisposeThreadSafeContext) \
    X(OrcExecutionSessionSetErrorReporter) X(OrcJITDylibAddGenerator) \
    X(OrcJITDylibCreateResourceTracker) X(OrcJITTargetMachineBuilderCreateFromTargetMachine) \
    X(OrcLLJITAddLLVMIRModuleWithRT) X(OrcLLJITBuilderSetJITTargetMachineBuilder) \
    X(OrcLLJITGetExecutionSession) X(OrcLLJITGetGlobalPrefix) X(OrcLLJITGetMainJITDylib) \
    X(OrcLLJITLookup) X(OrcReleaseResourceTracker) X(OrcResourceTrackerRemove) \
    X(OrcSymbolStringPoolEntryStr) X(OrcThreadSafeContextGetContext) X(PointerType) \
    X(PositionBuilderAtEnd) X(PositionBuilderBefore) X(RunPasses) X(SetAlignment) X(SetMetadata) \
    X(SetDataLayout) X(TypeOf) X(VectorType) X(VerifyModule) X(VoidTypeInContext)


/* The functions, looked up by name when LLVM is loaded; the header's
 * prototypes give each pointer its type. */
#define LLVM_MEMBER(f) __typeof__(&LLVM##f) f;
typedef struct cvm_llvm_api {
    LLVM_API(LLVM_MEMBER)
    void (*target_info)(void), (*target)(void), (*target_mc)(void), (*asm_printer)(void);
} cvm_llvm_api;
extern cvm_llvm_api cvm_llvm;
/* jit/llvm.c and jit/native.c call them as llvm.BuildAdd(...) */
#define llvm cvm_llvm

/* The process's JIT, started (and LLVM loaded) by the first call that
 * succeeds; false with the reason otherwise. Called under jit_rt.c's lock. */
bool cvm_llvm_start(char *why, size_t n);
extern LLVMOrcLLJITRef cvm_llvm_jit;
/* Whether the target CPU has AVX-512 with BW and DQ (set by
 * cvm_llvm_start): a plane's 32-bit mask is then one register (else a
 * bitcast of it to lanes is a long scalar sequence: native.h lane_mask),
 * and 64-bit integers convert to and from doubles in one instruction
 * (else lane by lane: native_ops.c cvm_nat_divide). */
extern bool cvm_llvm_avx512;
/* Whether it fuses multiply-adds (x86 FMA3): f32 exp is then compiled with
 * llvm.fma, which would otherwise be a call to libm per lane
 * (native_ops.c exp_f32; the bits are the same either way). */
extern bool cvm_llvm_fma;
/* A target machine for the host CPU (NULL if LLVM has none). */
LLVMTargetMachineRef cvm_llvm_host_machine(void);
/* "what: message" of error e (consumed) in why, with the JIT's last
 * asynchronous error, if any, appended. */
void cvm_llvm_error_text(LLVMErrorRef e, char *why, size_t n, const char *what);

#endif /* CVM_JIT_LLVM_H */
