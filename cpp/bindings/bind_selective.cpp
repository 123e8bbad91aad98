// ropelab._core.selective: the released Selective RoPE angle path (core:
// cpp/include/ropelab/selective.hpp). The typed wrapper (python/ropelab/selective.py) checks shapes
// and names the arguments; these checks only guarantee that the core never reads or writes out of
// bounds.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "common.hpp"
#include "ropelab/selective.hpp"

namespace ropelab::bind {

namespace {

namespace sl = ropelab::selective;

void need(bool ok, const char* name, const std::string& what, py::handle obj) {
  if (!ok) value_error("selective.angles", name, what, obj);
}

std::size_t dim(const darray& a, int i) {
  return static_cast<std::size_t>(a.shape(i));
}

std::tuple<darray, darray, darray> angles(
    ArrayLike hidden_o, ArrayLike down_o, ArrayLike up_o, OptionalArrayLike conv_o, bool silu,
    OptionalArrayLike bias_o, OptionalArrayLike gate_down_o, OptionalArrayLike gate_up_o,
    OptionalArrayLike gate_bias_o, ArrayLike theta_o, std::size_t heads, double eps, bool float32,
    ArrayLike cache_o, ArrayLike offset_o, bool diff_from_zero) {
  const char* f = "selective.angles";
  const darray hidden = real_array_nd(hidden_o, f, "hidden", 3);
  const darray down = real_array_nd(down_o, f, "proj_down", 2);
  const darray up = real_array_nd(up_o, f, "proj_up", 2);
  const darray theta = real_array_nd(theta_o, f, "temperature", 1);
  sl::Config cfg;
  cfg.model_dim = dim(hidden, 2);
  cfg.heads = heads;
  cfg.rank = dim(down, 0);
  need(heads >= 1 && cfg.model_dim % heads == 0, "num_heads", "must divide model_dim",
       py::int_(heads));
  need(dim(down, 1) == cfg.model_dim && cfg.rank >= 1, "proj_down",
       "must have shape (rank, model_dim)", down_o);
  need(dim(up, 1) == cfg.rank && dim(up, 0) % heads == 0 && dim(up, 0) >= heads, "proj_up",
       "must have shape (H*R, rank)", up_o);
  cfg.pairs = dim(up, 0) / heads;
  const std::size_t C = cfg.channels();
  need(dim(theta, 0) == cfg.pairs, "temperature", "must have R entries", theta_o);
  need(std::isfinite(eps) && eps >= 0, "eps", "must be finite and >= 0", py::float_(eps));
  cfg.silu = silu;
  cfg.eps = eps;
  cfg.float32 = float32;
  sl::Weights w;
  w.down = down.data();
  w.up = up.data();
  w.theta = theta.data();
  darray conv, bias, gdown, gup, gbias;
  if (!conv_o.is_none()) {
    conv = real_array_nd(conv_o, f, "conv_weight", 2);
    need(dim(conv, 0) == C && dim(conv, 1) >= 1, "conv_weight", "must have shape (H*R, K)", conv_o);
    cfg.taps = dim(conv, 1);
    w.conv = conv.data();
  }
  if (!bias_o.is_none()) {
    bias = real_array_nd(bias_o, f, "bias", 1);
    need(dim(bias, 0) == C, "bias", "must have H*R entries", bias_o);
    cfg.has_bias = true;
    w.bias = bias.data();
  }
  if (!gate_up_o.is_none()) {
    gup = real_array_nd(gate_up_o, f, "gate_up", 2);
    gbias = real_array_nd(gate_bias_o, f, "gate_bias", 1);
    cfg.gate_out = dim(gup, 0);
    need(cfg.gate_out == heads || cfg.gate_out == C, "gate_up", "must have H or H*R rows",
         gate_up_o);
    need(dim(gbias, 0) == cfg.gate_out, "gate_bias", "must have one entry per gate output",
         gate_bias_o);
    if (!gate_down_o.is_none()) {
      gdown = real_array_nd(gate_down_o, f, "gate_down", 2);
      cfg.gate_rank = dim(gdown, 0);
      need(cfg.gate_rank >= 1 && dim(gdown, 1) == cfg.model_dim, "gate_down",
           "must have shape (gate_rank, model_dim)", gate_down_o);
      w.gate_down = gdown.data();
    }
    need(dim(gup, 1) == (cfg.gate_rank > 0 ? cfg.gate_rank : cfg.model_dim), "gate_up",
         "must have gate_rank (or model_dim) columns", gate_up_o);
    w.gate_up = gup.data();
    w.gate_bias = gbias.data();
  }
  const std::size_t B = dim(hidden, 0), T = dim(hidden, 1), W = cfg.cache_width();
  // Copies: the caller's state arrays are not modified in place.
  darray cache(std::vector<py::ssize_t>{static_cast<py::ssize_t>(B), static_cast<py::ssize_t>(C),
                                        static_cast<py::ssize_t>(W)});
  darray offset(std::vector<py::ssize_t>{static_cast<py::ssize_t>(B), static_cast<py::ssize_t>(C)});
  {
    const darray c_in = real_array_nd(cache_o, f, "conv_cache", 3);
    need(dim(c_in, 0) == B && dim(c_in, 1) == C && dim(c_in, 2) == W, "conv_cache",
         "must have shape (batch, H*R, K) (K = 1 for skip_conv)", cache_o);
    std::copy(c_in.data(), c_in.data() + c_in.size(), cache.mutable_data());
    const darray o_in = real_array_nd(offset_o, f, "offset", 2);
    need(dim(o_in, 0) == B && dim(o_in, 1) == C, "offset", "must have shape (batch, H*R)",
         offset_o);
    std::copy(o_in.data(), o_in.data() + o_in.size(), offset.mutable_data());
  }
  check_output_size(static_cast<double>(B) * static_cast<double>(T) * static_cast<double>(C), f,
                    "h and the weights");
  darray psi(std::vector<py::ssize_t>{static_cast<py::ssize_t>(B), static_cast<py::ssize_t>(T),
                                      static_cast<py::ssize_t>(C)});
  const double* ph = hidden.data();
  double *pc = cache.mutable_data(), *po = offset.mutable_data(), *pa = psi.mutable_data();
  run_interruptible([&](const std::atomic<bool>* cancel) {
    sl::angles(cfg, w, ph, B, T, pc, po, diff_from_zero, pa, cancel);
  });
  return {psi, cache, offset};
}

}  // namespace

void register_selective(py::module_& m) {
  m.def("angles", &angles, "hidden"_a, "proj_down"_a, "proj_up"_a, "conv_weight"_a, "silu"_a,
        "bias"_a, "gate_down"_a, "gate_up"_a, "gate_bias"_a, "temperature"_a, "num_heads"_a,
        "eps"_a, "float32"_a, "conv_cache"_a, "offset"_a, "diff_from_zero"_a);
}

}  // namespace ropelab::bind
