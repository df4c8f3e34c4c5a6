// Rows of the op test table for the Philox random ops and take (Note [Op test table] in op_table.hpp).
// The random references come from a scalar Philox4x32-10 written here from the paper, independently of
// the library's (it must reproduce Random123's known answers, test_random_take.cpp), following Note
// [Counter-based random numbers] in src/ops/random.hpp: uniforms and integers must match it exactly on
// every device, so every device gives the same bits; normals to a few ulp of float64 Box-Muller.
#include <algorithm>
#include <cmath>

#include "accelera/ops.hpp"
#include "accelera/random.hpp"
#include "op_table.hpp"
#include "random_reference.hpp"

namespace acc_test::op_table {

namespace {

using namespace random_reference;

struct Draw {
  std::uint64_t seed, offset;
};
// Counters that start at 0, in the middle, and across the carry into the counter's high word.
const Draw kDraws[] = {{0, 0}, {0x243F6A8885A308D3ull, 12345}, {42, 0xFFFFFFFEull}};

// The element shapes and draws long enough to be split among threads (the tests' parallel grain is 4096)
// with a partial last block: the CPU's vector Philox, its threads' shares and its scalar tail.
std::vector<Shape> draw_shapes() {
  std::vector<Shape> shapes = element_shapes();
  shapes.insert(shapes.end(), {Shape{4099}, Shape{3, 1367}});
  return shapes;
}

std::string draw_label(const Shape& s, Draw d, const std::string& extra) {
  return s.str() + " seed " + std::to_string(d.seed) + " offset " + std::to_string(d.offset) + " " + extra;
}

// The value of element i of a draw rounded as the kernels round it: computed in float32 (float64 for
// float64) and stored in dt.
double stored(double v, DType dt) {
  switch (dt) {
    case DType::f32: return static_cast<float>(v);
    case DType::f16: return round_to_format(v, kHalf);
    case DType::bf16: return round_to_format(v, kBF16);
    default: return v;
  }
}

Row uniform_row() {
  return {"random_uniform", [](DType dt, std::mt19937_64&) {
            std::vector<Case> cases;
            for (const Shape& shape : draw_shapes()) {
              for (Draw draw : kDraws) {
                for (auto [low, high] : {std::pair{0.0, 1.0}, std::pair{-2.5, 3.0}}) {
                  Ref ref{shape, {}, {}};
                  for (std::int64_t i = 0; i < shape.numel(); ++i) {
                    const double u = reference_uniform(draw.seed, draw.offset, i, dt);
                    // low + scale u rounded twice in the compute type, as the kernels do it.
                    double v = 0;
                    if (dt == DType::f64) {
                      v = low + (high - low) * u;
                    } else {
                      const float p = static_cast<float>(high - low) * static_cast<float>(u);
                      v = static_cast<float>(static_cast<float>(low) + p);
                    }
                    ref.v.push_back(stored(v, dt));
                  }
                  cases.push_back({draw_label(shape, draw, "[" + std::to_string(low) + ", " + std::to_string(high) + ")"),
                                   {},
                                   [=](const std::vector<Tensor>&, const Device& device) {
                                     return std::vector<Tensor>{accelera::random_uniform(shape, dt, device, draw.seed,
                                                                                         draw.offset, low, high)};
                                   },
                                   {ref},
                                   Tol{0, 0}});
                }
              }
            }
            return cases;
          }};
}

Tol normal_tol(DType dt) {
  switch (dt) {
    case DType::f32: return {1e-5, 1e-5};  // float32 log/sin/cos and the rounding of 2 pi u
    case DType::f64: return {1e-12, 1e-12};
    default: return rounded_tol(dt);
  }
}

Row normal_row() {
  return {"random_normal", [](DType dt, std::mt19937_64&) {
            std::vector<Case> cases;
            for (const Shape& shape : draw_shapes()) {
              for (Draw draw : kDraws) {
                for (auto [loc, scale] : {std::pair{0.0, 1.0}, std::pair{1.5, 2.0}}) {
                  Ref ref{shape, {}, {}};
                  for (std::int64_t i = 0; i < shape.numel(); ++i) {
                    const double z = reference_normal(draw.seed, draw.offset, i, dt);
                    ref.v.push_back(loc + scale * z);
                    ref.mag.push_back(std::fabs(loc) + scale * (std::fabs(z) + 1));
                  }
                  cases.push_back({draw_label(shape, draw, "loc " + std::to_string(loc)),
                                   {},
                                   [=](const std::vector<Tensor>&, const Device& device) {
                                     return std::vector<Tensor>{accelera::random_normal(shape, dt, device, draw.seed,
                                                                                        draw.offset, loc, scale)};
                                   },
                                   {ref},
                                   normal_tol(dt)});
                }
              }
            }
            return cases;
          }};
}

Row integers_row() {
  return {"random_integers", [](DType dt, std::mt19937_64&) {
            struct Bounds {
              std::int64_t low, high;
              bool endpoint;
            };
            std::vector<Bounds> bounds = {{-7, 13, false}, {5, 5, true}, {0, 2, false},
                                          {INT32_MIN, INT32_MAX, true}, {-1000003, 999983, false}};
            if (dt == DType::i64) {
              bounds.push_back({-(std::int64_t{1} << 40), std::int64_t{1} << 45, false});
              bounds.push_back({INT64_MIN, INT64_MAX, true});  // every value: the range 2^64 comes out as 0
            }
            std::vector<Case> cases;
            for (const Shape& shape : draw_shapes()) {
              for (Draw draw : kDraws) {
                for (Bounds b : bounds) {
                  Ref ref{shape, {}, {}};
                  for (std::int64_t i = 0; i < shape.numel(); ++i) {
                    ref.v.push_back(static_cast<double>(
                        reference_integer(draw.seed, draw.offset, i, dt, b.low,
                                          static_cast<std::int64_t>(static_cast<std::uint64_t>(b.high) + (b.endpoint ? 1 : 0)))));
                  }
                  cases.push_back({draw_label(shape, draw, "[" + std::to_string(b.low) + ", " + std::to_string(b.high) +
                                                               (b.endpoint ? "]" : ")")),
                                   {},
                                   [=](const std::vector<Tensor>&, const Device& device) {
                                     return std::vector<Tensor>{accelera::random_integers(
                                         shape, dt, device, b.low, b.high, b.endpoint, draw.seed, draw.offset)};
                                   },
                                   {ref},
                                   Tol{0, 0}});
                }
              }
            }
            return cases;
          }};
}

// ---- take -----------------------------------------------------------------------------------------

std::int64_t wrapped(double index, std::int64_t size) {
  const auto i = static_cast<std::int64_t>(index);
  return i < 0 ? i + size : i;
}

// NumPy's take along `axis` (-1: of x flattened), in float64.
Ref take_ref(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  std::vector<std::int64_t> xd = x.shape().dims();
  if (axis < 0) xd = {x.numel()};
  const std::int64_t a = axis < 0 ? 0 : axis;
  const std::vector<double> flat = values_of(x);
  std::vector<std::int64_t> od(xd.begin(), xd.begin() + a);
  od.insert(od.end(), indices.shape().dims().begin(), indices.shape().dims().end());
  od.insert(od.end(), xd.begin() + a + 1, xd.end());
  Ref r{Shape(od), {}, {}};
  const auto k = static_cast<std::size_t>(indices.ndim());
  for_each_index(r.shape, [&](const Index& o, std::int64_t) {
    const Index ii(o.begin() + a, o.begin() + a + static_cast<std::ptrdiff_t>(k));
    Index xi(o.begin(), o.begin() + a);
    xi.push_back(wrapped(get(indices, ii), xd[static_cast<std::size_t>(a)]));
    xi.insert(xi.end(), o.begin() + a + static_cast<std::ptrdiff_t>(k), o.end());
    if (axis < 0) {
      r.v.push_back(flat[static_cast<std::size_t>(xi[0])]);
    } else {
      r.v.push_back(get(x, xi));
    }
  });
  return r;
}

Ref take_along_ref(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  std::vector<std::int64_t> od(static_cast<std::size_t>(x.ndim()));
  for (std::int64_t d = 0; d < x.ndim(); ++d) od[static_cast<std::size_t>(d)] = d == axis || x.dim(d) == 1 ? indices.dim(d) : x.dim(d);  // broadcast
  Ref r{Shape(od), {}, {}};
  for_each_index(r.shape, [&](const Index& o, std::int64_t) {
    Index ii = o, xi = o;
    for (std::int64_t d = 0; d < x.ndim(); ++d) {
      if (indices.dim(d) == 1) ii[static_cast<std::size_t>(d)] = 0;
      if (x.dim(d) == 1 && d != axis) xi[static_cast<std::size_t>(d)] = 0;
    }
    xi[static_cast<std::size_t>(axis)] = wrapped(get(indices, ii), x.dim(axis));
    r.v.push_back(get(x, xi));
  });
  return r;
}

Row take_row() {
  return {"take", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            const std::vector<Shape> shapes = {Shape{7}, Shape{1}, Shape{13, 31}, Shape{3, 1, 127}, Shape{2, 3, 4, 5},
                                               Shape{0, 5}, Shape{}};
            const std::vector<Shape> index_shapes = {Shape{5}, Shape{}, Shape{0}, Shape{3, 2}, Shape{17}};
            const View views[] = {View::contiguous, View::transposed, View::step2, View::negstep, View::broadcast, View::offset};
            std::size_t pick = 0;
            for (const Shape& shape : shapes) {
              for (View v : views) {
                Input x = make_input(shape, dt, v, rng, -100, 100);
                // axis -1 stands for None (x flattened); then each axis.
                for (std::int64_t axis = -1; axis < shape.ndim(); ++axis) {
                  const std::int64_t size = axis < 0 ? shape.numel() : shape[axis];
                  const Shape& is = index_shapes[pick++ % index_shapes.size()];
                  if (size == 0 && is.numel() > 0) continue;  // every index would be out of range
                  const DType idt = pick % 2 ? DType::i64 : DType::i32;
                  Input ind = make_input(is, idt, pick % 3 == 0 ? View::negstep : View::contiguous, rng,
                                         static_cast<double>(-size), static_cast<double>(size - 1));
                  const std::optional<std::int64_t> ax = axis < 0 ? std::nullopt : std::optional(axis);
                  cases.push_back({shape.str() + " " + view_name(v) + " take axis " + std::to_string(axis) +
                                       " indices " + is.str(),
                                   {x, ind},
                                   [ax](const std::vector<Tensor>& t, const Device&) {
                                     return std::vector<Tensor>{accelera::take(t[0], t[1], ax)};
                                   },
                                   {take_ref(x.host(), ind.host(), axis)},
                                   Tol{0, 0}});
                  if (axis < 0) continue;
                  // take_along_axis: indices of x's rank, some extents 1 (broadcast), j along the axis.
                  std::vector<std::int64_t> id = shape.dims();
                  for (std::int64_t d = 0; d < shape.ndim(); ++d) {
                    if (d == axis) id[static_cast<std::size_t>(d)] = size == 0 ? 0 : 1 + static_cast<std::int64_t>(pick % 4);
                    else if (pick % 2 == 0) id[static_cast<std::size_t>(d)] = 1;
                  }
                  Input along = make_input(Shape(id), idt, v == View::step2 ? View::transposed : View::contiguous, rng,
                                           static_cast<double>(-size), static_cast<double>(size - 1));
                  cases.push_back({shape.str() + " " + view_name(v) + " take_along_axis " + std::to_string(axis),
                                   {x, along},
                                   [axis](const std::vector<Tensor>& t, const Device&) {
                                     return std::vector<Tensor>{accelera::take_along_axis(t[0], t[1], axis)};
                                   },
                                   {take_along_ref(x.host(), along.host(), axis)},
                                   Tol{0, 0}});
                }
              }
            }
            return cases;
          }};
}

// ---- put ------------------------------------------------------------------------------------------

// x after x[..., indices[j...], ...] = values[..., j..., ...] along `axis` (indices distinct), in float64.
Ref put_ref(const Tensor& x, const Tensor& indices, const Tensor& values, std::int64_t axis) {
  Ref r{x.shape(), values_of(x), {}};
  const auto k = static_cast<std::ptrdiff_t>(indices.ndim());
  for_each_index(values.shape(), [&](const Index& o, std::int64_t) {
    const Index ii(o.begin() + axis, o.begin() + axis + k);
    Index xi(o.begin(), o.begin() + axis);
    xi.push_back(wrapped(get(indices, ii), x.dim(axis)));
    xi.insert(xi.end(), o.begin() + axis + k, o.end());
    std::int64_t lin = 0;
    for (std::size_t d = 0; d < xi.size(); ++d) lin = lin * x.dim(static_cast<std::int64_t>(d)) + xi[d];
    r.v[static_cast<std::size_t>(lin)] = get(values, o);
  });
  r.mag.assign(r.v.size(), 0.0);
  return r;
}

Row put_row() {
  return {"put", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            const std::vector<Shape> shapes = {Shape{7}, Shape{1}, Shape{13, 31}, Shape{3, 1, 127}, Shape{2, 3, 4, 5}};
            std::size_t pick = 0;
            for (const Shape& shape : shapes) {
              for (View v : {View::contiguous, View::transposed, View::step2, View::negstep, View::offset}) {
                for (std::int64_t axis = 0; axis < shape.ndim(); ++axis) {
                  const std::int64_t size = shape[axis];
                  // Distinct positions (a repeated one has no defined winner), some written as negatives.
                  std::vector<std::int64_t> order(static_cast<std::size_t>(size));
                  for (std::int64_t i = 0; i < size; ++i) order[static_cast<std::size_t>(i)] = i;
                  std::shuffle(order.begin(), order.end(), rng);
                  const std::int64_t count = std::min<std::int64_t>(size, 1 + static_cast<std::int64_t>(pick++ % 5));
                  Tensor positions = Tensor::empty(Shape{count}, DType::i64);
                  for (std::int64_t i = 0; i < count; ++i) {
                    const std::int64_t p = order[static_cast<std::size_t>(i)];
                    positions.data<std::int64_t>()[i] = (i % 2 == 1) ? p - size : p;
                  }
                  const Input indices{positions};
                  std::vector<std::int64_t> vd(shape.dims().begin(), shape.dims().begin() + axis);
                  vd.push_back(count);
                  vd.insert(vd.end(), shape.dims().begin() + axis + 1, shape.dims().end());
                  Input x = make_input(shape, dt, v, rng, -100, 100);
                  Input values = make_input(Shape(vd), dt, pick % 2 ? View::contiguous : View::broadcast, rng, -100, 100);
                  cases.push_back({shape.str() + " " + view_name(v) + " put axis " + std::to_string(axis),
                                   {x, indices, values},
                                   [axis](const std::vector<Tensor>& t, const Device&) {
                                     accelera::put(t[0], t[1], t[2], axis);  // writes through the view
                                     return std::vector<Tensor>{t[0]};
                                   },
                                   {put_ref(x.host(), indices.host(), values.host(), axis)},
                                   Tol{0, 0}});
                }
              }
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> random_rows() { return {uniform_row(), normal_row(), integers_row(), take_row(), put_row()}; }

}  // namespace acc_test::op_table
