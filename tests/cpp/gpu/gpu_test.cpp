#include "gpu/gpu_test.hpp"

namespace gt {

int32_t cuda_devices() {
  int32_t n = 0;
  NT_CHECK(ndrt_device_count(NDRT_DEVICE_TYPE_CUDA, &n));
  return n;
}

OnDevice::OnDevice(ndrt_device dev) {
  NT_CHECK(ndrt_thread_device(&before));
  NT_CHECK(ndrt_thread_attach(dev));
}
OnDevice::~OnDevice() { ndrt_thread_attach(before); }

nt::Tensor to_device(const nt::Tensor& t, ndrt_device dev) {
  nt::Tensor out;
  NT_CHECK(ndrt_tensor_to_device(t.get(), dev, out.out()));
  return out;
}

Pair Pair::permute(const std::vector<int32_t>& perm) const { return {nt::permute(cpu, perm), nt::permute(gpu, perm)}; }
Pair Pair::slice(int32_t axis, int64_t start, int64_t stop, int64_t step) const {
  return {nt::slice(cpu, axis, start, stop, step), nt::slice(gpu, axis, start, stop, step)};
}
Pair Pair::expand(const nt::Shape& s) const { return {nt::expand(cpu, s), nt::expand(gpu, s)}; }
Pair Pair::reshape(const nt::Shape& s) const { return {nt::reshape(cpu, s), nt::reshape(gpu, s)}; }

Pair pair_of(nt::Tensor cpu) {
  nt::Tensor gpu = to_device(cpu, kCuda0);
  return {std::move(cpu), std::move(gpu)};
}

Pair random_pair(ndrt_dtype d, const nt::Shape& s, std::mt19937& rng, const nt::Gen& gen) {
  nt::Gen g = gen ? gen : nt::default_gen(d);
  std::vector<double> v(size_t(nt::numel_of(s)));
  for (double& x : v) x = g(rng);
  return values_pair(d, s, v);
}

Pair values_pair(ndrt_dtype d, const nt::Shape& s, const std::vector<double>& v) {
  return pair_of(nt::from_values(d, s, v, NDRT_CPU));
}

nt::Tol cuda_tol(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: return {1e-10, 1e-12};
    case NDRT_F32: return {2e-5, 1e-5};  // atol: long f32 sums grouped differently on the CPU
    case NDRT_F16: return {4e-3, 1e-4};
    case NDRT_BF16: return {2e-2, 1e-3};
    default: return {0, 0};
  }
}

std::vector<std::vector<double>> expect_same(const char* op, const std::vector<const Pair*>& in,
                                             const nt::Attrs& a, const nt::Tol* tol) {
  std::vector<ndrt_handle> cpu_in, gpu_in;
  for (const Pair* p : in) {
    cpu_in.push_back(p->cpu.get());
    gpu_in.push_back(p->gpu.get());
  }
  // Number of outputs: the "outputs" list of the op's description.
  std::string desc = nt::op_describe(op);
  size_t from = desc.find("\"outputs\":["), to = desc.find(']', from);
  size_t n_out = 0;
  for (size_t p = desc.find("{\"name\"", from); p < to; p = desc.find("{\"name\"", p + 1)) ++n_out;
  std::vector<ndrt_handle> cpu_out(n_out, 0);
  std::vector<nt::Tensor> cpu_res;
  {
    OnDevice on(NDRT_CPU);
    NT_CHECK(nt::exec(op, cpu_in, cpu_out, a));
    for (ndrt_handle h : cpu_out) cpu_res.emplace_back(h);
  }
  // CUDA outputs: given, poisoned, of the CPU outputs' dtype and shape.
  std::vector<nt::Tensor> gpu_res;
  std::vector<ndrt_handle> gpu_out;
  for (const nt::Tensor& t : cpu_res) {
    std::vector<uint8_t> poison = nt::poison_bytes(t.dtype(), t.numel());
    nt::Tensor host = nt::from_bytes(t.dtype(), t.shape(), poison.data(), poison.size(), NDRT_CPU);
    gpu_res.push_back(to_device(host, kCuda0));
    gpu_out.push_back(gpu_res.back().get());
  }
  {
    OnDevice on(kCuda0);
    NT_CHECK(nt::exec(op, gpu_in, gpu_out, a));
    NT_CHECK(ndrt_synchronize(kCuda0));
  }
  std::vector<std::vector<double>> values;
  for (size_t i = 0; i < cpu_res.size(); ++i) {
    ndrt_dtype d = cpu_res[i].dtype();
    nt::Tol t = tol ? *tol : cuda_tol(d);
    std::vector<double> want = nt::read_values(cpu_res[i]);
    values.push_back(nt::read_values(gpu_res[i]));
    nt::expect_close(values.back(), want, d, t, std::string(op) + " output " + std::to_string(i) + " (cuda vs cpu)");
  }
  return values;
}

}  // namespace gt
