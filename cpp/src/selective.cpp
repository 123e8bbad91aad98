#include "ropelab/selective.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace ropelab::selective {

namespace {

bool is_cancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

double sigmoid(double x) {
  // 1/(1 + e^{−x}) without overflow for large |x|.
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

/// y (m) = A (m×n, row-major) x (n), each dot product summed in index order.
void matvec(const double* A, std::size_t m, std::size_t n, const double* x, double* y) {
  for (std::size_t r = 0; r < m; ++r) {
    const double* a = A + r * n;
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += a[i] * x[i];
    y[r] = s;
  }
}

/// Steps 1–2 and the gate values of step 5 for the T steps of one sequence: u (T×C) and gates
/// (T×gate_out).
void project_sequence(const Config& cfg, const Weights& w, const double* hidden, std::size_t T,
                      double* u, double* gates) {
  const std::size_t n = cfg.model_dim, C = cfg.channels(), G = cfg.gate_out;
  std::vector<double> xhat(n), low(cfg.rank), glow(cfg.gate_rank), pre(G);
  for (std::size_t t = 0; t < T; ++t) {
    steps::normalise_heads(cfg, hidden + t * n, xhat.data());
    steps::project(cfg, w, xhat.data(), low.data(), u + t * C);
    if (G != 0) steps::gate_values(cfg, w, xhat.data(), glow.data(), pre.data(), gates + t * G);
  }
}

/// Step 3 for every channel of one sequence (cache: C × cache_width, updated).
void convolve_sequence(const Config& cfg, const Weights& w, const double* u, std::size_t T,
                       double* cache, bool diff_from_zero, double* phi) {
  const std::size_t C = cfg.channels(), K = cfg.taps, W = cfg.cache_width();
  if (T == 0) return;  // nothing to convolve; the cache is unchanged (and u, phi may be null)
  for (std::size_t c = 0; c < C; ++c) {
    if (K == 0) {
      steps::first_difference(u + c, C, T, cache + c * W, diff_from_zero, phi + c);
    } else {
      steps::short_conv(w.conv + c * K, K, cfg.silu, u + c, C, T, cache + c * W, phi + c);
    }
  }
}

/// Steps 6–7 for every channel of sequence b (offset: C, updated); throws when a running sum
/// overflows. Ctrl-C is polled between channels (false: cancelled).
bool accumulate_sequence(const Config& cfg, const Weights& w, const double* phi, std::size_t T,
                         std::size_t b, double* offset, double* angles,
                         const std::atomic<bool>* cancel) {
  const std::size_t C = cfg.channels(), R = cfg.pairs;
  if (T == 0) return !is_cancelled(cancel);  // offsets unchanged (and phi, angles may be null)
  for (std::size_t c = 0; c < C; ++c) {
    if (is_cancelled(cancel)) return false;
    const double theta = w.theta[c % R];
    offset[c] = cfg.float32 ? steps::accumulate32(phi + c, C, T, offset[c], theta, angles + c)
                            : steps::accumulate64(phi + c, C, T, offset[c], theta, angles + c);
    if (!std::isfinite(offset[c])) {
      throw std::invalid_argument("selective.angles: the running sum of sequence " +
                                  std::to_string(b) + ", channel " + std::to_string(c) +
                                  " is not finite (overflow)");
    }
  }
  return true;
}

}  // namespace

namespace steps {

void check_config(const Config& cfg) {
  const std::size_t n = cfg.model_dim, H = cfg.heads, C = cfg.channels(), G = cfg.gate_out;
  if (H == 0 || n == 0 || cfg.pairs == 0 || cfg.rank == 0 || n % H != 0) {
    throw std::invalid_argument("selective.angles: inconsistent sizes");
  }
  if (G != 0 && G != H && G != C)
    throw std::invalid_argument("selective.angles: gate_out must be H or H*R");
}

std::vector<double> exp_bias(const Config& cfg, const Weights& w) {
  std::vector<double> expb(cfg.has_bias ? cfg.channels() : 0);
  for (std::size_t c = 0; c < expb.size(); ++c) {
    expb[c] = std::exp(w.bias[c]);
    if (!std::isfinite(expb[c])) {
      throw std::invalid_argument("selective.angles: exp(bias) overflows for channel " +
                                  std::to_string(c) + " (bias = " + std::to_string(w.bias[c]) +
                                  ")");
    }
  }
  return expb;
}

void normalise_heads(const Config& cfg, const double* x, double* xhat) {
  const std::size_t hd = cfg.model_dim / cfg.heads;
  for (std::size_t h = 0; h < cfg.heads; ++h) {
    double ss = 0;
    for (std::size_t i = 0; i < hd; ++i) ss += x[h * hd + i] * x[h * hd + i];
    const double inv = 1.0 / std::sqrt(ss + cfg.eps);
    for (std::size_t i = 0; i < hd; ++i) xhat[h * hd + i] = x[h * hd + i] * inv;
  }
}

void project(const Config& cfg, const Weights& w, const double* xhat, double* low, double* u) {
  matvec(w.down, cfg.rank, cfg.model_dim, xhat, low);
  matvec(w.up, cfg.channels(), cfg.rank, low, u);
}

void gate_values(const Config& cfg, const Weights& w, const double* xhat, double* glow, double* pre,
                 double* gates) {
  const std::size_t G = cfg.gate_out;
  if (cfg.gate_rank > 0) {
    matvec(w.gate_down, cfg.gate_rank, cfg.model_dim, xhat, glow);
    matvec(w.gate_up, G, cfg.gate_rank, glow, pre);
  } else {
    matvec(w.gate_up, G, cfg.model_dim, xhat, pre);
  }
  for (std::size_t g = 0; g < G; ++g) gates[g] = sigmoid(pre[g] + w.gate_bias[g]);
}

void first_difference(const double* u, std::size_t stride, std::size_t T, double* cache,
                      bool diff_from_zero, double* phi) {
  double prev = diff_from_zero ? 0.0 : cache[0];
  for (std::size_t t = 0; t < T; ++t) {
    const double cur = u[t * stride];
    phi[t * stride] = cur - prev;
    prev = cur;
  }
  if (T > 0) cache[0] = u[(T - 1) * stride];
}

void short_conv(const double* conv, std::size_t K, bool silu, const double* u, std::size_t stride,
                std::size_t T, double* cache, double* phi) {
  // input at step t − K + 1 + j: from the cache (columns 1..K−1 hold steps −K+1..−1) or u
  auto input = [&](std::size_t t, std::size_t j) {
    const std::size_t pos = t + j;  // index into [cache[1..K−1], u[0..T)]
    return pos + 1 < K ? cache[pos + 1] : u[(pos + 1 - K) * stride];
  };
  for (std::size_t t = 0; t < T; ++t) {
    double s = 0;
    for (std::size_t j = 0; j < K; ++j) s += conv[j] * input(t, j);
    if (silu) s = s * sigmoid(s);
    phi[t * stride] = s;
  }
  // new cache: the last K entries of [cache[0..K), u[0..T)]
  std::vector<double> tail(K);
  for (std::size_t j = 0; j < K; ++j) {
    const std::size_t pos = T + j;  // index into [cache, u] of length K + T; last K: pos ≥ T
    tail[j] = pos < K ? cache[pos] : u[(pos - K) * stride];
  }
  for (std::size_t j = 0; j < K; ++j) cache[j] = tail[j];
}

void bias_and_gate(const Config& cfg, const double* expb, const double* gates, std::size_t T,
                   double* phi) {
  const std::size_t C = cfg.channels(), G = cfg.gate_out, H = cfg.heads, R = cfg.pairs;
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t c = 0; c < C; ++c) {
      double p = phi[t * C + c];
      if (cfg.has_bias) p = p + expb[c];
      if (G == H)
        p = p * gates[t * G + c / R];
      else if (G == C)
        p = p * gates[t * G + c];
      phi[t * C + c] = p;
    }
  }
}

double accumulate64(const double* phi, std::size_t stride, std::size_t T, double offset,
                    double theta, double* angles) {
  double s = offset;
  for (std::size_t t = 0; t < T; ++t) {
    s = s + phi[t * stride];
    angles[t * stride] = s * theta;
  }
  return s;
}

double accumulate32(const double* phi, std::size_t stride, std::size_t T, double offset,
                    double theta, double* angles) {
  const float th = static_cast<float>(theta);
  const float o = static_cast<float>(offset);
  float s = 0.0f, v = o;
  for (std::size_t t = 0; t < T; ++t) {
    s = s + static_cast<float>(phi[t * stride]);
    v = s + o;
    angles[t * stride] = static_cast<double>(v * th);
  }
  return static_cast<double>(v);
}

}  // namespace steps

void angles(const Config& cfg, const Weights& w, const double* hidden, std::size_t batch,
            std::size_t T, double* cache, double* offset, bool diff_from_zero, double* angles,
            const std::atomic<bool>* cancel) {
  steps::check_config(cfg);
  const std::size_t n = cfg.model_dim, C = cfg.channels(), W = cfg.cache_width();
  const std::size_t G = cfg.gate_out;
  const std::vector<double> expb = steps::exp_bias(cfg, w);
  std::vector<double> u(T * C);    // projections of this call, step-major
  std::vector<double> phi(T * C);  // increments
  std::vector<double> gates(T * G);
  // a long sequence runs in pieces of about 2^22 multiply-adds (the convolution carries its
  // cache from piece to piece: the same arithmetic as one pass), Ctrl-C polled between them
  const std::size_t per_step =
      n * (cfg.rank + cfg.gate_rank + 1) + C * (cfg.rank + cfg.taps + 2) + G * (cfg.gate_rank + 1);
  const std::size_t piece = std::max<std::size_t>(1, (std::size_t{1} << 22) / per_step);
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t t0 = 0; t0 < T; t0 += piece) {
      if (is_cancelled(cancel)) return;
      const std::size_t m = std::min(piece, T - t0);
      project_sequence(cfg, w, hidden + (b * T + t0) * n, m, u.data() + t0 * C,
                       gates.data() + t0 * G);
      convolve_sequence(cfg, w, u.data() + t0 * C, m, cache + b * C * W, diff_from_zero && t0 == 0,
                        phi.data() + t0 * C);
      steps::bias_and_gate(cfg, expb.data(), gates.data() + t0 * G, m, phi.data() + t0 * C);
    }
    if (!accumulate_sequence(cfg, w, phi.data(), T, b, offset + b * C, angles + b * T * C, cancel))
      return;
  }
}

}  // namespace ropelab::selective
