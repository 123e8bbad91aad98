#include "ropelab/selective.hpp"

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

}  // namespace

void phases(const Config& cfg, const Weights& w, const double* hidden, std::size_t batch,
            std::size_t T, double* cache, double* offset, bool diff_from_zero, double* angles,
            const std::atomic<bool>* cancel) {
  const std::size_t n = cfg.model_dim, H = cfg.heads, R = cfg.pairs, C = cfg.channels();
  if (H == 0 || n == 0 || R == 0 || cfg.rank == 0 || n % H != 0) {
    throw std::invalid_argument("selective.phases: inconsistent sizes");
  }
  const std::size_t hd = n / H, K = cfg.taps, W = cfg.cache_width();
  const std::size_t G = cfg.gate_out;
  if (G != 0 && G != H && G != C)
    throw std::invalid_argument("selective.phases: gate_out must be H or H*R");

  std::vector<double> xhat(n), low(cfg.rank), glow(cfg.gate_rank), gate(G);
  std::vector<double> u(T * C);    // projections of this call, step-major
  std::vector<double> phi(T * C);  // increments
  std::vector<double> expb(cfg.has_bias ? C : 0);
  for (std::size_t c = 0; c < expb.size(); ++c) {
    expb[c] = std::exp(w.bias[c]);
    if (!std::isfinite(expb[c])) {
      throw std::invalid_argument("selective.phases: exp(bias) overflows for channel " +
                                  std::to_string(c) + " (bias = " + std::to_string(w.bias[c]) +
                                  ")");
    }
  }

  for (std::size_t b = 0; b < batch; ++b) {
    if (is_cancelled(cancel)) return;
    // 1–2: normalisation and low-rank projection; 5 (gate values) alongside.
    std::vector<double> gates(G == 0 ? 0 : T * G);
    for (std::size_t t = 0; t < T; ++t) {
      const double* x = hidden + (b * T + t) * n;
      for (std::size_t h = 0; h < H; ++h) {
        double ss = 0;
        for (std::size_t i = 0; i < hd; ++i) ss += x[h * hd + i] * x[h * hd + i];
        const double inv = 1.0 / std::sqrt(ss + cfg.eps);
        for (std::size_t i = 0; i < hd; ++i) xhat[h * hd + i] = x[h * hd + i] * inv;
      }
      matvec(w.down, cfg.rank, n, xhat.data(), low.data());
      matvec(w.up, C, cfg.rank, low.data(), u.data() + t * C);
      if (G != 0) {
        if (cfg.gate_rank > 0) {
          matvec(w.gate_down, cfg.gate_rank, n, xhat.data(), glow.data());
          matvec(w.gate_up, G, cfg.gate_rank, glow.data(), gate.data());
        } else {
          matvec(w.gate_up, G, n, xhat.data(), gate.data());
        }
        for (std::size_t g = 0; g < G; ++g) gates[t * G + g] = sigmoid(gate[g] + w.gate_bias[g]);
      }
    }
    // 3: convolution (or first difference) with the cache; the cache then takes the newest inputs.
    double* cb = cache + b * C * W;
    for (std::size_t c = 0; c < C; ++c) {
      double* cc = cb + c * W;
      if (K == 0) {
        double prev = diff_from_zero ? 0.0 : cc[0];
        for (std::size_t t = 0; t < T; ++t) {
          const double cur = u[t * C + c];
          phi[t * C + c] = cur - prev;
          prev = cur;
        }
        if (T > 0) cc[0] = u[(T - 1) * C + c];
      } else {
        const double* wc = w.conv + c * K;
        // input at step t − K + 1 + j: from the cache (columns 1..K−1 hold steps −K+1..−1) or u
        auto input = [&](std::size_t t, std::size_t j) {
          const std::size_t pos = t + j;  // index into [cache[1..K−1], u[0..T)]
          return pos + 1 < K ? cc[pos + 1] : u[(pos + 1 - K) * C + c];
        };
        for (std::size_t t = 0; t < T; ++t) {
          double s = 0;
          for (std::size_t j = 0; j < K; ++j) s += wc[j] * input(t, j);
          if (cfg.silu) s = s * sigmoid(s);
          phi[t * C + c] = s;
        }
        // new cache: the last K entries of [cache[0..K), u[0..T)]
        std::vector<double> tail(K);
        for (std::size_t j = 0; j < K; ++j) {
          const std::size_t pos = T + j;  // index into [cache, u] of length K + T; last K: pos ≥ T
          tail[j] = pos < K ? cc[pos] : u[(pos - K) * C + c];
        }
        for (std::size_t j = 0; j < K; ++j) cc[j] = tail[j];
      }
    }
    // 4–5: bias and gate.
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
    // 6–7: running sum and temperature.
    double* off = offset + b * C;
    double* out = angles + b * T * C;
    for (std::size_t c = 0; c < C; ++c) {
      const std::size_t r = c % R;
      if (cfg.float32) {
        const float th = static_cast<float>(w.theta[r]);
        const float o = static_cast<float>(off[c]);
        float s = 0.0f, v = o;
        for (std::size_t t = 0; t < T; ++t) {
          s = s + static_cast<float>(phi[t * C + c]);
          v = s + o;
          out[t * C + c] = static_cast<double>(v * th);
        }
        off[c] = static_cast<double>(v);
      } else {
        double s = off[c];
        const double th = w.theta[r];
        for (std::size_t t = 0; t < T; ++t) {
          s = s + phi[t * C + c];
          out[t * C + c] = s * th;
        }
        off[c] = s;
      }
      if (!std::isfinite(off[c])) {
        throw std::invalid_argument("selective.phases: the running phase of sequence " +
                                    std::to_string(b) + ", channel " + std::to_string(c) +
                                    " is not finite (overflow)");
      }
    }
  }
}

}  // namespace ropelab::selective
