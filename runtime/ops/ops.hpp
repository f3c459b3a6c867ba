// Op definitions by family (runtime/ops/*.cpp) and the shape helpers they share.
#pragma once
#include "../registry.hpp"

namespace ndrt {

void define_all_ops(Registry& r);
void define_creation_ops(Registry& r);     // fill, copy, cast
void define_elementwise_ops(Registry& r);  // unary and broadcasting binary
void define_reduce_ops(Registry& r);       // sum, mean, max over axes
void define_linalg_ops(Registry& r);       // matmul, gemm
void define_random_ops(Registry& r);
void define_layout_ops(Registry& r);
void define_softmax_loss_ops(Registry& r);
void define_conv_ops(Registry& r);
void define_conv1d_ops(Registry& r);       // conv1d family, run as conv2d (conv1d.cpp)
void define_norm_ops(Registry& r);
void define_updaters_ops(Registry& r);
void define_rnn_ops(Registry& r);            // lstm, gru and their gradients
void define_sequence_pool_ops(Registry& r);  // pooling over time under a mask

void register_cpu_kernels(Registry& r);    // kernels/cpu/register.cpp
// conv1d's kernels: wherever conv2d has one, after every backend registered its own (conv1d.cpp).
void register_conv1d_kernels(Registry& r);

// numpy broadcasting of two shapes; throws NDRT_ERR_SHAPE_MISMATCH naming `op`.
Dims broadcast_shapes(const char* op, const Dims& a, const Dims& b);
// Axis in [-rank, rank) to [0, rank); throws NDRT_ERR_INVALID_ARGUMENT naming `op`.
int32_t normalize_axis(const char* op, int64_t axis, int32_t rank);
// Bitmask of reduced axes from an `axes` list attribute (empty = all); rejects duplicates.
uint32_t reduce_mask(const char* op, const int64_t* axes, int32_t n, int32_t rank);

// Common checks for shape functions.
void require_same_dtype(const OpContext& c);  // all inputs share input 0's dtype
void require_float(const OpContext& c, ndrt_dtype d);

}  // namespace ndrt
