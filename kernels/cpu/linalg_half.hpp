// f16 / bf16 linalg: OpenBLAS has no half-precision GEMM, so these ops convert their operands to
// f32, run the f32 kernel (f32 accumulation) and round each result to the 16-bit type once.
// bf16 matmul goes to oneDNN's matmul primitive instead where this CPU has bf16 instructions
// (linalg_dnnl.cpp); the profiler's impl name says which ran.
#pragma once
#include "registry.hpp"

namespace ndrt::linalg {

// Runs `f32_kernel` on f32 copies of c's inputs and writes its outputs, rounded to nearest even,
// into c's outputs. Sets c.impl to `impl`.
void run_via_f32(OpContext& c, KernelFn f32_kernel, const char* impl);

// Conversion of a whole tensor between f32 and f16/bf16 (any strides, same shape), over the pool.
void convert_tensor(const Tensor& dst, const Tensor& src);

// oneDNN bf16 matmul (linalg_dnnl.cpp): runs it and returns true when oneDNN is built in, the CPU
// has native bf16 support and the operands' layouts suit it; false leaves c untouched.
bool dnnl_matmul_bf16(OpContext& c);

}  // namespace ndrt::linalg
