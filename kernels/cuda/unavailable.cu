// The cuda kernels of ops whose library this module was built without (cuBLAS or cuDNN missing
// from the toolkit at configure time; see the top CMakeLists.txt). They are registered so that
// such an op on a cuda tensor says why it cannot run, instead of "no cuda kernel", and so that the
// kernel table stays the same whatever the toolkit had. Each list is the registrations of the files
// left out: linalg.cu, rnn.cu and rnn_gru.cu (cuBLAS); conv.cu (cuDNN).
#include "cuda_common.cuh"

namespace ndrt::cuda {
namespace {

const std::initializer_list<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};

[[noreturn]] void unavailable(const OpContext& c, const char* library) {
  fail(NDRT_ERR_NOT_SUPPORTED,
       "%s on cuda needs %s, which this libndrt_cuda was built without (not found in the CUDA toolkit at "
       "configure time); run it on the cpu, or rebuild with %s installed",
       c.op->name, library, library);
}

void needs_cublas(OpContext& c) { unavailable(c, "cuBLAS"); }
void needs_cudnn(OpContext& c) { unavailable(c, "cuDNN"); }

}  // namespace

void register_unavailable_cublas() {
  for (const char* op : {"matmul", "gemm", "linear", "linear_bp", "lstm", "lstm_bp", "gru", "gru_bp"})
    reg(op, kFloats, needs_cublas, "unavailable:cuBLAS");
}

void register_unavailable_cudnn() {
  for (const char* op : {"conv2d", "conv2d_bias", "conv2d_bp_data", "conv2d_bp_weights"})
    reg(op, kFloats, needs_cudnn, "unavailable:cuDNN");
}

}  // namespace ndrt::cuda
