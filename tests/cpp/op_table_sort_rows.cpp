// Rows of the op test table for sort, argsort, searchsorted and the unique_* functions (Note [Op test
// table] in op_table.hpp). Inputs are seeded with ties, signed zeros, infinities and NaNs (of both signs),
// so stability, the order of NaNs and the equality of -0.0 and +0.0 are checked exactly, by the indices.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "accelera/ops.hpp"
#include "op_table.hpp"

namespace acc_test::op_table {

namespace {

std::string label(const Shape& s, View v, const std::string& extra) {
  return s.str() + " " + view_name(v) + " " + extra;
}

// Stores a special value as raw bits (NaNs keep their sign; half formats have no exact route via double).
void put_special(const Tensor& t, const Index& idx, int which) {
  std::byte* p = elem_ptr(t, idx);
  const auto put = [p](auto x) { std::memcpy(p, &x, sizeof(x)); };
  // which: 0: +0, 1: -0, 2: NaN, 3: -NaN, 4: +inf, 5: -inf, 6: 1, 7: -1
  static const double doubles[] = {0.0, -0.0, kNaN, -kNaN, kInf, -kInf, 1.0, -1.0};
  switch (t.dtype()) {
    case DType::f16: {
      static const std::uint16_t h[] = {0x0000, 0x8000, 0x7E00, 0xFE01, 0x7C00, 0xFC00, 0x3C00, 0xBC00};
      return put(h[which]);
    }
    case DType::bf16: {
      static const std::uint16_t b[] = {0x0000, 0x8000, 0x7FC0, 0xFFC1, 0x7F80, 0xFF80, 0x3F80, 0xBF80};
      return put(b[which]);
    }
    case DType::f32: return put(static_cast<float>(doubles[which]));
    case DType::f64: return put(doubles[which]);
    // -1 stays exact through a double in every integer type but uint64, whose 2^64 - 1 is not: 2^63 there.
    case DType::u64: return set(t, idx, which % 2 == 0 ? 1.0 : 0x1p63);
    default: return set(t, idx, which % 2 == 0 ? 1.0 : (t.dtype() == DType::boolean ? 0.0 : -1.0));
  }
}

// An input whose elements are ~1/3 specials (ties among them), the rest random in [lo, hi].
Input seeded_input(const Shape& shape, DType dt, View v, std::mt19937_64& rng) {
  const bool narrow = !is_float(dt);
  Input in = make_input(shape, dt, v, rng, narrow ? -5 : -3, narrow ? 5 : 3);
  const Tensor base = in.base;
  const bool floating = is_float(dt);
  for_each_index(base.shape(), [&](const Index& idx, std::int64_t) {
    if (rng() % 3 != 0) return;
    const int which = static_cast<int>(rng() % 8);
    if (!floating && which >= 2 && which <= 5) return;
    put_special(base, idx, which);
  });
  return in;
}

// Ascending order of the array API: NaNs last; a descending sort is the stable sort by the reverse order.
bool before(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

// The stable order of `vals` (positions).
std::vector<std::int64_t> stable_order(const std::vector<double>& vals, bool descending) {
  std::vector<std::int64_t> at(vals.size());
  std::iota(at.begin(), at.end(), 0);
  std::stable_sort(at.begin(), at.end(), [&](std::int64_t i, std::int64_t j) {
    return descending ? before(vals[static_cast<std::size_t>(j)], vals[static_cast<std::size_t>(i)])
                      : before(vals[static_cast<std::size_t>(i)], vals[static_cast<std::size_t>(j)]);
  });
  return at;
}

// References of sort (values) and argsort (positions) of x along axis.
std::pair<Ref, Ref> sort_refs(const Tensor& x, std::int64_t axis, bool descending) {
  Ref values{x.shape(), std::vector<double>(static_cast<std::size_t>(x.numel())), {}};
  Ref positions = values;
  const std::int64_t n = x.dim(axis);
  for_each_index(x.shape(), [&](const Index& idx, std::int64_t) {
    if (idx[static_cast<std::size_t>(axis)] != 0) return;  // once per line along the axis
    std::vector<double> line(static_cast<std::size_t>(n));
    Index i = idx;
    for (std::int64_t k = 0; k < n; ++k) i[static_cast<std::size_t>(axis)] = k, line[static_cast<std::size_t>(k)] = get(x, i);
    const auto order = stable_order(line, descending);
    for (std::int64_t k = 0; k < n; ++k) {
      i[static_cast<std::size_t>(axis)] = k;
      std::int64_t lin = 0;
      for (std::int64_t d = 0; d < x.ndim(); ++d) lin = lin * x.dim(d) + i[static_cast<std::size_t>(d)];
      values.v[static_cast<std::size_t>(lin)] = line[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])];
      positions.v[static_cast<std::size_t>(lin)] = static_cast<double>(order[static_cast<std::size_t>(k)]);
    }
  });
  positions.mag.assign(positions.v.size(), 0.0);
  return {values, positions};
}

Row sort_row() {
  return {"sort", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : {Shape{1}, Shape{7}, Shape{13, 31}, Shape{3, 1, 127}, Shape{2, 3, 4, 5},
                                       Shape{0, 5}, Shape{1, 1, 1023}, Shape{257, 3}, Shape{2, 4099}}) {
              for (View v : kAllViews) {
                Input in = seeded_input(shape, dt, v, rng);
                for (std::int64_t axis = -1; axis < shape.ndim(); ++axis) {
                  if (axis == -1 && shape.ndim() == 1) continue;
                  for (bool descending : {false, true}) {
                    const std::int64_t a = axis < 0 ? shape.ndim() - 1 : axis;
                    auto [values, positions] = sort_refs(in.host(), a, descending);
                    const std::string what = "axis " + std::to_string(axis) + (descending ? " descending" : "");
                    cases.push_back({label(shape, v, "sort " + what), {in},
                                     [axis, descending](const std::vector<Tensor>& t, const Device&) {
                                       return std::vector<Tensor>{accelera::sort(t[0], axis, descending),
                                                                  accelera::argsort(t[0], axis, descending)};
                                     },
                                     {values, positions}, Tol{0, 0}});
                  }
                }
              }
            }
            // One long row, which the CPU splits among threads and OpenCL merges in global passes.
            Input in = seeded_input(Shape{300007}, dt, View::contiguous, rng);
            for (bool descending : {false, true}) {
              auto [values, positions] = sort_refs(in.host(), 0, descending);
              cases.push_back({label(Shape{300007}, View::contiguous, descending ? "long row descending" : "long row"),
                               {in},
                               [descending](const std::vector<Tensor>& t, const Device&) {
                                 return std::vector<Tensor>{accelera::sort(t[0], 0, descending),
                                                            accelera::argsort(t[0], 0, descending)};
                               },
                               {values, positions}, Tol{0, 0}});
            }
            // Keys whose high bytes all agree: a radix sort skips those passes, leaving the rows after an
            // odd or even number of moves (OpenCL's CPU-device form), whole rows per item and chunked.
            for (const Shape& shape : {Shape{3, 5003}, Shape{70001}}) {
              Input small = contiguous_input(shape, dt, rng, 0, 100);
              auto [values, positions] = sort_refs(small.host(), shape.ndim() - 1, false);
              cases.push_back({label(shape, View::contiguous, "sort small non-negative keys"), {small},
                               [](const std::vector<Tensor>& t, const Device&) {
                                 return std::vector<Tensor>{accelera::sort(t[0]), accelera::argsort(t[0])};
                               },
                               {values, positions}, Tol{0, 0}});
            }
            return cases;
          }};
}

// Sorts the 1-D host tensor t in place (ascending, NaNs last) and returns it.
void sort_host(const Tensor& t) {
  std::vector<double> v = values_of(t);
  const auto order = stable_order(v, false);
  for (std::int64_t k = 0; k < t.numel(); ++k) set(t, {k}, v[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]);
}

Ref searchsorted_ref(const Tensor& sorted, const Tensor& x2, bool right) {
  const std::vector<double> s = values_of(sorted);
  Ref r{x2.shape(), {}, {}};
  for_each_index(x2.shape(), [&](const Index& idx, std::int64_t) {
    const double v = get(x2, idx);
    std::int64_t count = 0;
    for (double e : s) count += right ? !before(v, e) : before(e, v);
    r.v.push_back(static_cast<double>(count));
  });
  r.mag.assign(r.v.size(), 0.0);
  return r;
}

Row searchsorted_row() {
  return {"searchsorted", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            const Shape needles[] = {Shape{}, Shape{5}, Shape{0}, Shape{13, 7}, Shape{3, 1, 17}};
            std::size_t pick = 0;
            for (std::int64_t n : {0, 1, 2, 7, 31, 1000}) {
              // Seeded values are mostly on a coarse grid, so needles often equal elements of x1.
              Input x1 = seeded_input(Shape{n}, dt, View::contiguous, rng);
              Input shuffled = seeded_input(Shape{n}, dt, View::contiguous, rng);
              sort_host(x1.base);
              for (bool right : {false, true}) {
                const Shape& ns = needles[pick++ % std::size(needles)];
                Input x2 = seeded_input(ns, dt, pick % 2 ? View::negstep : View::contiguous, rng);
                cases.push_back({label(Shape{n}, View::contiguous, right ? "right" : "left"), {x1, x2},
                                 [right](const std::vector<Tensor>& t, const Device&) {
                                   return std::vector<Tensor>{accelera::searchsorted(t[0], t[1], right)};
                                 },
                                 {searchsorted_ref(x1.host(), x2.host(), right)}, Tol{0, 0}});
                // With a sorter: x1 unsorted, sorter its stable argsort.
                const Tensor host = shuffled.host();
                const auto order = stable_order(values_of(host), false);
                Input sorter{Tensor::empty(Shape{n}, DType::i64)};
                for (std::int64_t k = 0; k < n; ++k) set_int(sorter.base, {k}, order[static_cast<std::size_t>(k)]);
                const Tensor sorted = host.clone();
                sort_host(sorted);
                cases.push_back({label(Shape{n}, View::contiguous, right ? "right sorter" : "left sorter"),
                                 {shuffled, x2, sorter},
                                 [right](const std::vector<Tensor>& t, const Device&) {
                                   return std::vector<Tensor>{accelera::searchsorted(t[0], t[1], right, t[2])};
                                 },
                                 {searchsorted_ref(sorted, x2.host(), right)}, Tol{0, 0}});
              }
            }
            return cases;
          }};
}

// values, indices, inverse_indices, counts of the array API's unique_all (each NaN distinct).
std::vector<Ref> unique_refs(const Tensor& x) {
  std::vector<double> flat;
  for_each_index(x.shape(), [&](const Index& idx, std::int64_t) { flat.push_back(get(x, idx)); });
  const auto order = stable_order(flat, false);
  Ref values{Shape{0}, {}, {}}, first = values, counts = values;
  Ref inverse{x.shape(), std::vector<double>(flat.size()), std::vector<double>(flat.size(), 0.0)};
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double v = flat[static_cast<std::size_t>(order[k])];
    const bool starts = k == 0 || std::isnan(v) || !(flat[static_cast<std::size_t>(order[k - 1])] == v);
    if (starts) values.v.push_back(v), first.v.push_back(static_cast<double>(order[k])), counts.v.push_back(0);
    counts.v.back() += 1;
    inverse.v[static_cast<std::size_t>(order[k])] = static_cast<double>(values.v.size() - 1);
  }
  const Shape groups{static_cast<std::int64_t>(values.v.size())};
  values.shape = first.shape = counts.shape = groups;
  first.mag.assign(first.v.size(), 0.0);
  counts.mag.assign(counts.v.size(), 0.0);
  return {values, first, inverse, counts};
}

Row unique_row(const std::string& name) {
  return {name, [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : {Shape{}, Shape{1}, Shape{0}, Shape{7}, Shape{13, 31}, Shape{3, 1, 127},
                                       Shape{2, 3, 4, 5}, Shape{0, 5}, Shape{257, 33}}) {
              for (View v : kAllViews) {
                Input in = seeded_input(shape, dt, v, rng);
                cases.push_back({label(shape, v, "unique_all"), {in},
                                 [](const std::vector<Tensor>& t, const Device&) {
                                   const auto r = accelera::unique(t[0], true, true, true);
                                   return std::vector<Tensor>{r.values, r.indices, r.inverse_indices, r.counts};
                                 },
                                 unique_refs(in.host()), Tol{0, 0}});
                // unique_counts and unique_inverse: their kernels run without the outputs not asked for.
                const std::vector<Ref> refs = unique_refs(in.host());
                cases.push_back({label(shape, v, "unique_counts"), {in},
                                 [](const std::vector<Tensor>& t, const Device&) {
                                   const auto r = accelera::unique(t[0], false, false, true);
                                   return std::vector<Tensor>{r.values, r.counts};
                                 },
                                 {refs[0], refs[3]}, Tol{0, 0}});
                cases.push_back({label(shape, v, "unique_inverse"), {in},
                                 [](const std::vector<Tensor>& t, const Device&) {
                                   const auto r = accelera::unique(t[0], false, true, false);
                                   return std::vector<Tensor>{r.values, r.inverse_indices};
                                 },
                                 {refs[0], refs[2]}, Tol{0, 0}});
              }
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> sort_rows() {
  return {sort_row(), searchsorted_row(), unique_row("unique_groups"), unique_row("unique_scatter")};
}

}  // namespace acc_test::op_table
