#include "ropelab/rotary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/montecarlo.hpp"
#include "ropelab/names.hpp"

namespace ropelab::rotary {

namespace {
constexpr double kPi = 3.14159265358979323846;
// π = kPiHi + kPiLo to about 2^-107 relative (double-double).
constexpr double kPiHi = 3.141592653589793116;
constexpr double kPiLo = 1.2246467991473532e-16;

/// Steps between two checks of a cancel flag (~0.1-1 ms of work).
constexpr std::size_t kPollStride = std::size_t{1} << 16;

/// Throws mc::Cancelled when `cancel` (may be null) is set.
inline void poll(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
}

/// Counts work and polls `cancel` every kPollStride steps.
struct Poller {
  const std::atomic<bool>* cancel;
  std::size_t work = 0;
  void step(std::size_t n) {
    work += n;
    if (work >= kPollStride) {
      work = 0;
      poll(cancel);
    }
  }
};
}  // namespace

const std::vector<std::string>& layout_names() {
  static const std::vector<std::string> n{"interleaved", "half"};
  return n;
}

const std::vector<std::string>& accumulate_names() {
  static const std::vector<std::string> n{"float64", "float32", "wrapped"};
  return n;
}

Layout parse_layout(const std::string& name) {
  return names::parse<Layout>(layout_names(), name, "layout");
}

Accumulate parse_accumulate(const std::string& name) {
  return names::parse<Accumulate>(accumulate_names(), name, "accumulate");
}

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names{"none", "silu"};
  return names;
}

Activation parse_activation(const std::string& name) {
  return names::parse<Activation>(activation_names(), name, "activation");
}

void frequencies(std::size_t d, double base, double* out, const std::atomic<bool>* cancel) {
  const std::size_t h = d / 2;
  for (std::size_t i = 0; i < h; ++i) {
    if ((i % kPollStride) == 0) poll(cancel);
    out[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
  }
}

void rope_angles(const double* positions, std::size_t n, std::size_t d, double base, double scale,
                 double* out, const std::atomic<bool>* cancel) {
  const std::size_t h = d / 2;
  std::vector<double> theta(h);
  frequencies(d, base, theta.data(), cancel);
  Poller poller{cancel};
  for (std::size_t m = 0; m < n; ++m) {
    poller.step(h);
    const double p = scale * positions[m];
    for (std::size_t i = 0; i < h; ++i) out[m * h + i] = p * theta[i];
  }
}

namespace {

/// Rotate rows [r0, r1); pair i of row r uses cos/sin of angle row (r mod na), read from the
/// precomputed tables `cs`, `sn` when given, else evaluated on the fly.
template <class T>
bool rotate_rows(const T* x, const double* angles, const double* cs, const double* sn,
                 std::size_t r0, std::size_t r1, std::size_t na, std::size_t d, Layout layout,
                 T* out, const std::atomic<bool>* cancel) {
  const std::size_t h = d / 2;
  // Channel stride between the two members of a pair and between consecutive pairs.
  const std::size_t second = layout == Layout::interleaved ? 1 : h;
  const std::size_t step = layout == Layout::interleaved ? 2 : 1;
  double probe = 0.0;
  std::vector<double> c_row, s_row;
  if (cs == nullptr) {
    c_row.resize(h);
    s_row.resize(h);
  }
  for (std::size_t r = r0; r < r1; ++r) {
    const std::size_t ar = (r % na) * h;
    const double* c;
    const double* s;
    if (cs != nullptr) {
      c = cs + ar;
      s = sn + ar;
    } else {
      for (std::size_t i = 0; i < h; ++i) {
        if ((i & (kPollStride - 1)) == kPollStride - 1)
          poll(cancel);  // rows longer than 2^16 pairs
        c_row[i] = std::cos(angles[ar + i]);
        s_row[i] = std::sin(angles[ar + i]);
      }
      c = c_row.data();
      s = s_row.data();
    }
    const T* xr = x + r * d;
    T* o = out + r * d;
    for (std::size_t i = 0; i < h; ++i) {
      if ((i & (kPollStride - 1)) == kPollStride - 1) poll(cancel);  // rows longer than 2^16 pairs
      const std::size_t a = i * step, b = a + second;
      const double x0 = static_cast<double>(xr[a]), x1 = static_cast<double>(xr[b]);
      o[a] = static_cast<T>(c[i] * x0 - s[i] * x1);
      o[b] = static_cast<T>(s[i] * x0 + c[i] * x1);
      probe += x0 * 0.0 + x1 * 0.0;  // NaN iff an input is inf or NaN; no branch in the loop
    }
  }
  return probe == 0.0;
}

}  // namespace

template <class T>
bool rotate(const T* x, const double* angles, std::size_t n, std::size_t na, std::size_t d,
            Layout layout, T* out, int nthreads, const std::atomic<bool>* cancel) {
  if (na == 0 || n % na != 0) throw std::invalid_argument("rotate: angle rows must divide rows");
  const std::size_t h = d / 2;
  // Below ~32k values a thread costs more than it saves.
  const bool threaded = nthreads != 1 && n * d >= (1u << 15);
  const std::size_t block = std::max<std::size_t>(1, (1u << 13) / std::max<std::size_t>(d, 1));
  // Angles shared by several rows (broadcast over a batch): evaluate cos/sin once per angle.
  std::vector<double> cs, sn;
  if (n / na >= 2) {
    cs.resize(na * h);
    sn.resize(na * h);
    auto table = [&](std::size_t b, std::size_t e) {
      poll(cancel);
      for (std::size_t j = b * h; j < e * h; ++j) {
        cs[j] = std::cos(angles[j]);
        sn[j] = std::sin(angles[j]);
      }
    };
    if (threaded) {
      mc::parallel_blocks(na, block, nthreads, table, cancel);
    } else {
      for (std::size_t b = 0; b < na; b += block) table(b, std::min(na, b + block));
    }
  }
  const double* pc = cs.empty() ? nullptr : cs.data();
  const double* ps = sn.empty() ? nullptr : sn.data();
  if (!threaded) {
    bool finite = true;
    for (std::size_t b = 0; b < n; b += block) {  // blocks of ~2^13 values: Ctrl-C between them
      poll(cancel);
      finite =
          rotate_rows(x, angles, pc, ps, b, std::min(n, b + block), na, d, layout, out, cancel) &&
          finite;
    }
    return finite;
  }
  std::atomic<bool> finite{true};
  mc::parallel_blocks(
      n, block, nthreads,
      [&](std::size_t b, std::size_t e) {
        if (!rotate_rows(x, angles, pc, ps, b, e, na, d, layout, out, cancel)) finite = false;
      },
      cancel);
  return finite.load();
}

template bool rotate<double>(const double*, const double*, std::size_t, std::size_t, std::size_t,
                             Layout, double*, int, const std::atomic<bool>*);
template bool rotate<float>(const float*, const double*, std::size_t, std::size_t, std::size_t,
                            Layout, float*, int, const std::atomic<bool>*);

namespace {
/// x reduced to [−π, π).
double wrap_pi(double x) {
  double y = std::fmod(x + kPi, 2 * kPi);
  if (y < 0) y += 2 * kPi;
  return y - kPi;
}
}  // namespace

void cumulative_angles(const double* omega, std::size_t batch, std::size_t T, std::size_t h,
                       const double* theta, Accumulate acc, double* out,
                       const std::atomic<bool>* cancel) {
  for (std::size_t b = 0; b < batch; ++b) {
    const double* w = omega + b * T * h;
    double* o = out + b * T * h;
    for (std::size_t i = 0; i < h; ++i) {
      double s64 = 0.0;
      float s32 = 0.0f;
      for (std::size_t t = 0; t < T; ++t) {
        if ((t % kPollStride) == 0) poll(cancel);  // at every column's start and every 2^16 steps
        const double inc = theta[i] * w[t * h + i];
        switch (acc) {
          case Accumulate::float64:
            s64 += inc;
            o[t * h + i] = s64;
            break;
          case Accumulate::float32:
            s32 += static_cast<float>(inc);
            o[t * h + i] = static_cast<double>(s32);
            break;
          case Accumulate::wrapped:
            s64 = wrap_pi(s64 + inc);
            o[t * h + i] = s64;
            break;
        }
      }
    }
  }
}

void short_conv(const double* x, std::size_t batch, std::size_t T, std::size_t c, const double* w,
                std::size_t K, std::size_t kernel_channels, Activation act, double* out,
                const std::atomic<bool>* cancel) {
  Poller poller{cancel};
  for (std::size_t b = 0; b < batch; ++b) {
    const double* xb = x + b * T * c;
    double* ob = out + b * T * c;
    for (std::size_t t = 0; t < T; ++t) {
      for (std::size_t ch = 0; ch < c; ++ch) {
        poller.step(std::min(K, t + 1));
        double y = 0.0;
        // weight j multiplies x[t − (K−1) + j]; skip the zero padding before t = 0 (j < K−1−t).
        for (std::size_t j = K - 1 > t ? K - 1 - t : 0; j < K; ++j) {
          const std::size_t lag = K - 1 - j;
          const double wj = kernel_channels == 1 ? w[j] : w[j * c + ch];
          y += wj * xb[(t - lag) * c + ch];
        }
        if (act == Activation::silu) y = y / (1.0 + std::exp(-y));
        ob[t * c + ch] = y;
      }
    }
  }
}

void decay_bound(const double* r, std::size_t n, std::size_t d, double base, double* out,
                 const std::atomic<bool>* cancel) {
  const std::size_t h = d / 2;
  std::vector<double> theta(h);
  frequencies(d, base, theta.data());
  for (std::size_t m = 0; m < n; ++m) {
    double sre = 0.0, sim = 0.0, total = 0.0;
    for (std::size_t j = 0; j < h; ++j) {  // S_{j+1} = S_j + e^{i r θ_j}
      if ((j & 0xFFFF) == 0 && cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
        throw mc::Cancelled();
      }
      const double a = r[m] * theta[j];
      sre += std::cos(a);
      sim += std::sin(a);
      total += std::hypot(sre, sim);
    }
    out[m] = total / static_cast<double>(h);
  }
}

void rotation_matrix(const double* angles, std::size_t d, Layout layout, double* out,
                     const std::atomic<bool>* cancel) {
  Poller poller{cancel};
  for (std::size_t r = 0; r < d; ++r) {
    poller.step(d);
    std::fill(out + r * d, out + (r + 1) * d, 0.0);
  }
  for (std::size_t i = 0; i < d / 2; ++i) {
    std::size_t c0 = 0, c1 = 0;
    pair_channels(layout, d, i, c0, c1);
    const double c = std::cos(angles[i]), s = std::sin(angles[i]);
    out[c0 * d + c0] = c;
    out[c0 * d + c1] = -s;
    out[c1 * d + c0] = s;
    out[c1 * d + c1] = c;
  }
}

void realify(const std::complex<double>* z, std::size_t n, std::size_t h, Layout layout,
             double* out, const std::atomic<bool>* cancel) {
  const std::size_t d = 2 * h;
  Poller poller{cancel};
  for (std::size_t r = 0; r < n; ++r) {
    poller.step(h);
    for (std::size_t i = 0; i < h; ++i) {
      if ((i & (kPollStride - 1)) == kPollStride - 1) poll(cancel);  // rows longer than 2^16 pairs
      std::size_t c0 = 0, c1 = 0;
      pair_channels(layout, d, i, c0, c1);
      out[r * d + c0] = z[r * h + i].real();
      out[r * d + c1] = z[r * h + i].imag();
    }
  }
}

void complexify(const double* x, std::size_t n, std::size_t d, Layout layout,
                std::complex<double>* out, const std::atomic<bool>* cancel) {
  const std::size_t h = d / 2;
  Poller poller{cancel};
  for (std::size_t r = 0; r < n; ++r) {
    poller.step(h);
    for (std::size_t i = 0; i < h; ++i) {
      if ((i & (kPollStride - 1)) == kPollStride - 1) poll(cancel);  // rows longer than 2^16 pairs
      std::size_t c0 = 0, c1 = 0;
      pair_channels(layout, d, i, c0, c1);
      out[r * h + i] = {x[r * d + c0], x[r * d + c1]};
    }
  }
}

void realify_diagonal(const std::complex<double>* lambda, std::size_t h, Layout layout, double* out,
                      const std::atomic<bool>* cancel) {
  const std::size_t d = 2 * h;
  Poller poller{cancel};
  for (std::size_t r = 0; r < d; ++r) {
    poller.step(d);
    std::fill(out + r * d, out + (r + 1) * d, 0.0);
  }
  for (std::size_t i = 0; i < h; ++i) {
    std::size_t c0 = 0, c1 = 0;
    pair_channels(layout, d, i, c0, c1);
    // λ z = (a + ib)(x + iy) = (ax − by) + i(bx + ay): the block [[a, −b], [b, a]] = |λ| R(arg λ).
    const double a = lambda[i].real(), b = lambda[i].imag();
    out[c0 * d + c0] = a;
    out[c0 * d + c1] = -b;
    out[c1 * d + c0] = b;
    out[c1 * d + c1] = a;
  }
}

void parity_angle_error(const std::uint8_t* bits, std::size_t T, Accumulate acc, double* out,
                        const std::atomic<bool>* cancel) {
  double s64 = 0.0;
  float s32 = 0.0f;
  const float pi32 = static_cast<float>(kPi);
  std::uint64_t ones = 0;
  for (std::size_t t = 0; t < T; ++t) {
    if (cancel != nullptr && (t & 0xFFFFF) == 0 && cancel->load()) throw mc::Cancelled();
    const bool b = bits[t] != 0;
    ones += b ? 1 : 0;
    double psi = 0.0;
    switch (acc) {
      case Accumulate::float64:
        if (b) s64 += kPi;
        psi = s64;
        break;
      case Accumulate::float32:
        if (b) s32 += pi32;
        psi = static_cast<double>(s32);
        break;
      case Accumulate::wrapped:
        if (b) s64 = wrap_pi(s64 + kPi);
        psi = s64;
        break;
    }
    // Exact phase π·n in double-double. The wrapped run lives in [−π, π), where the exact phase
    // is 0 (n even) or −π (n odd): compare with that, not with n·π, so no 2π is ever rounded.
    const double n =
        acc == Accumulate::wrapped ? ((ones & 1u) != 0 ? -1.0 : 0.0) : static_cast<double>(ones);
    const double p = n * kPiHi;
    const double p_err = std::fma(n, kPiHi, -p);  // n·π_hi = p + p_err exactly
    const double err = ((psi - p) - p_err) - n * kPiLo;
    // Reduce only when needed: wrap_pi adds π, which would round away errors below ulp(π).
    out[t] = (err >= -kPi && err < kPi) ? err : wrap_pi(err);
  }
}

}  // namespace ropelab::rotary
