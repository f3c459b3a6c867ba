// The CUDA module on machines without a GPU: it loads (NDRT_CUDA_LOAD_WITHOUT_DRIVER=1 makes
// libndrt load it even without a driver), reports 0 devices without breaking the CPU, and its
// kernel table covers the CPU's: every op x dtype with a CPU kernel has a CUDA kernel, except
// the documented gaps listed here. Runs in CI; the GPU results are checked by the `gpu` suite.
#include <cstdlib>
#include <map>
#include <set>

#include "common/ndrt_test.hpp"

namespace {

// "kernels":{"cpu":["f32","f64"],"cuda":["f32"]} -> {cpu: {f32, f64}, cuda: {f32}}
std::map<std::string, std::set<std::string>> kernels_of(const std::string& desc) {
  std::map<std::string, std::set<std::string>> out;
  size_t p = desc.find("\"kernels\":{");
  if (p == std::string::npos) return out;
  p += 11;
  while (desc[p] == '"') {
    size_t q = desc.find('"', p + 1);
    std::string backend = desc.substr(p + 1, q - p - 1);
    size_t end = desc.find(']', q);
    std::set<std::string>& s = out[backend];
    for (size_t a = desc.find('"', q + 3); a < end; a = desc.find('"', a + 1)) {
      size_t b = desc.find('"', a + 1);
      s.insert(desc.substr(a + 1, b - a - 1));
      a = b;
    }
    p = end + 1;
    if (desc[p] == ',') ++p;
  }
  return out;
}

// Op x dtype pairs the CPU has and CUDA deliberately does not (each with its reason).
const std::map<std::string, std::set<std::string>> kCudaGaps = {
    // The convolution fused with 2x2 max pooling saves a CPU's cache and memory traffic (the Java
    // layer plans it only where ndrt's direct CPU kernel runs it); on CUDA the separate cuDNN
    // convolution and the pooling ops serve.
    {"conv2d_bias_max_pool2x2", {"f32"}},
    {"max_pool2x2_bp_index", {"f32", "f64"}},
    {"conv2d_max_pool2x2_bp_weights", {"f32", "f64"}},
    {"conv2d_max_pool2x2_bp_data", {"f32", "f64"}},
};

TEST(CudaModule, LoadsAndLeavesTheCpuWorkingWhenNoGpuIsPresent) {
  int32_t n = -1;
  ASSERT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CUDA, &n));
  EXPECT_GE(n, 0);
  if (n == 0) {
    int64_t shape[] = {2};
    ndrt_handle h = 0;
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                  ndrt_tensor_create(NDRT_F32, 1, shape, NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 0), &h));
    int32_t type = -1;
    ASSERT_OK(ndrt_default_device_type(&type));
    EXPECT_EQ(type, NDRT_DEVICE_TYPE_CPU);
  }
  nt::Tensor a = nt::from_values(NDRT_F32, {2}, {1.5, -2}, NDRT_CPU);
  nt::Tensor b = nt::run("add", {&a, &a});
  EXPECT_EQ(nt::read_values(b), (std::vector<double>{3, -4}));
}

TEST(CudaModule, EveryCpuKernelHasACudaKernel) {
  int32_t count = 0;
  ASSERT_OK(ndrt_op_count(&count));
  int with_cuda = 0;
  std::string missing, extra;
  for (int32_t id = 0; id < count; ++id) {
    size_t needed = 0;
    ASSERT_OK(ndrt_op_describe(id, nullptr, 0, &needed));
    std::string desc(needed, '\0');
    ASSERT_OK(ndrt_op_describe(id, desc.data(), needed, nullptr));
    size_t n0 = desc.find("\"name\":\"") + 8;
    std::string name = desc.substr(n0, desc.find('"', n0) - n0);
    auto k = kernels_of(desc);
    if (!k["cuda"].empty()) ++with_cuda;
    auto gap = kCudaGaps.find(name);
    for (const std::string& d : k["cpu"])
      if (!k["cuda"].count(d) && !(gap != kCudaGaps.end() && gap->second.count(d))) missing += " " + name + ":" + d;
    for (const std::string& d : k["cuda"])
      if (!k["cpu"].count(d)) extra += " " + name + ":" + d;
  }
  ASSERT_GT(with_cuda, 0) << "the cuda module did not load or registered nothing (see NDRT_LOG_LEVEL=info)";
  EXPECT_EQ(missing, "") << "cpu kernels without a cuda kernel";
  EXPECT_EQ(extra, "") << "cuda kernels for dtypes the cpu does not have";
}

TEST(CudaModule, ConfigurationKeysAreChecked) {
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cuda.max_block_size", "100"));  // not whole warps
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cuda.max_block_size", "2048"));
  EXPECT_OK(ndrt_config_set("cuda.max_block_size", "128"));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cuda.virtual_devices", "65"));
  EXPECT_OK(ndrt_config_set("memory.cuda.max_cached_bytes", "1048576"));
  char buf[32];
  size_t needed = 0;
  ASSERT_OK(ndrt_config_get("memory.cuda.max_cached_bytes", buf, sizeof buf, &needed));
  EXPECT_STREQ(buf, "1048576");
  // cuda.matmul.allow_tf32: 0 (the default) or 1, settable at any time (read at each GEMM).
  if (!std::getenv("NDRT_CUDA_MATMUL_ALLOW_TF32")) {
    ASSERT_OK(ndrt_config_get("cuda.matmul.allow_tf32", buf, sizeof buf, &needed));
    EXPECT_STREQ(buf, "0");
  }
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cuda.matmul.allow_tf32", "2"));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cuda.matmul.allow_tf32", "yes"));
  EXPECT_OK(ndrt_config_set("cuda.matmul.allow_tf32", "1"));
  ASSERT_OK(ndrt_config_get("cuda.matmul.allow_tf32", buf, sizeof buf, &needed));
  EXPECT_STREQ(buf, "1");
  EXPECT_OK(ndrt_config_set("cuda.matmul.allow_tf32", "0"));
  int32_t n = 0;
  ASSERT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CUDA, &n));  // devices now in use: the count is fixed
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cuda.virtual_devices", "3"));
}

}  // namespace
