// conv and conv_backward on the CPU through oneDNN (Note [Convolution kernels] in ops/conv.hpp), float32.
// Compiled only in builds with oneDNN (ACCELERA_ONEDNN).
// Note [oneDNN layouts]: our tensors are (N, C, *spatial) row-major; oneDNN's fastest convolutions read
// and write channel-blocked layouts (nChw16c on AVX-512, nChw8c on AVX2) that it picks per shape and per
// CPU at run time (format_tag::any), so a build runs at the best speed of whichever x86 CPU it lands on.
// Each call reorders its operands into the layouts the primitive asked for, in scratch tensors from the
// caching allocator (so the budget counts them and no call pays fresh page faults), runs, and reorders the
// results back. On Fashion-MNIST's layers the reorders cost 10-20% of the convolution; keeping activations
// blocked between layers would save them but would leak the layout into every other op.
#include <memory>
#include <vector>

#include "backends/cpu/onednn/common.hpp"
#include "backends/cpu/onednn/conv.hpp"

namespace accelera::cpu::onednn {

namespace {

// The oneDNN view of one convolution: dimensions over the real spatial axes (1 to 3; the geometry's leading
// axes of extent 1 are dropped, so 2-D layers get 2-D kernels), oneDNN's dilation (0 = none), and padding.
struct ConvDims {
  Dims src, weights, bias, dst, strides, dilates, pad_left, pad_right;
  memory::format_tag activations = memory::format_tag::undef, filters = memory::format_tag::undef;
  bool has_bias = false;

  // The key of the primitive cache.
  std::vector<std::int64_t> key() const {
    std::vector<std::int64_t> k;
    for (const Dims* d : {&src, &weights, &dst, &strides, &dilates, &pad_left}) {
      k.insert(k.end(), d->begin(), d->end());
      k.push_back(-1);
    }
    k.push_back(has_bias);
    return k;
  }
};

ConvDims conv_dims(const Tensor& x, const Tensor& weight, const WindowGeometry& g, bool has_bias) {
  const int axes = static_cast<int>(x.ndim()) - 2;
  ConvDims d;
  d.src = {g.batch, g.channels};
  d.weights = {weight.dim(0), g.channels};
  d.dst = {g.batch, weight.dim(0)};
  d.bias = {weight.dim(0)};
  for (int a = 3 - axes; a < 3; ++a) {
    d.src.push_back(g.in[a]);
    d.weights.push_back(g.kernel[a]);
    d.dst.push_back(g.out[a]);
    d.strides.push_back(g.stride[a]);
    d.dilates.push_back(g.dilation[a] - 1);
    d.pad_left.push_back(g.pad[a]);
  }
  // oneDNN rounds the output extent down as we do, so the right padding may equal the left one even where
  // the stride leaves the last elements unread.
  d.pad_right = d.pad_left;
  using tag = memory::format_tag;
  d.activations = axes == 1 ? tag::ncw : axes == 2 ? tag::nchw : tag::ncdhw;
  d.filters = axes == 1 ? tag::oiw : axes == 2 ? tag::oihw : tag::oidhw;
  d.has_bias = has_bias;
  return d;
}

// The primitives of one convolution shape, built once (oneDNN compiles them for the running CPU).
struct ConvPlan {
  dnnl::convolution_forward::primitive_desc forward_pd;
  dnnl::convolution_forward forward;
  dnnl::convolution_backward_data::primitive_desc data_pd;
  dnnl::convolution_backward_data backward_data;
  dnnl::convolution_backward_weights::primitive_desc weights_pd;
  dnnl::convolution_backward_weights backward_weights;

  explicit ConvPlan(const ConvDims& d) {
    dnnl::engine& engine = cpu_engine();
    const auto attr = user_scratchpad();
    const memory::desc bias = d.has_bias ? plain(d.bias, memory::format_tag::x) : memory::desc();
    const auto algorithm = dnnl::algorithm::convolution_direct;
    forward_pd = {{dnnl::prop_kind::forward_training, algorithm, any(d.src), any(d.weights), bias, any(d.dst),
                   d.strides, d.dilates, d.pad_left, d.pad_right},
                  attr, engine};
    forward = dnnl::convolution_forward(forward_pd);
    data_pd = {{algorithm, any(d.src), any(d.weights), any(d.dst), d.strides, d.dilates, d.pad_left, d.pad_right},
               attr, engine, forward_pd};
    backward_data = dnnl::convolution_backward_data(data_pd);
    weights_pd = {{algorithm, any(d.src), any(d.weights), bias, any(d.dst), d.strides, d.dilates, d.pad_left,
                   d.pad_right},
                  attr, engine, forward_pd};
    backward_weights = dnnl::convolution_backward_weights(weights_pd);
  }
};

std::shared_ptr<const ConvPlan> plan_for(const ConvDims& d) {
  return cached_plan<ConvPlan>(d.key(), d, "convolution setup");
}

}  // namespace

void conv(const Tensor& x, const Tensor& weight, const Tensor& bias, const WindowGeometry& g, const Tensor& y) {
  const ConvDims d = conv_dims(x, weight, g, bias.defined());
  const auto plan = plan_for(d);
  onednn("convolution", [&] {
    CallMemory mem;
    const auto& pd = plan->forward_pd;
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, mem.input(mem.wrap(x, d.src, d.activations), pd.src_desc())},
        {DNNL_ARG_WEIGHTS, mem.input(mem.wrap(weight, d.weights, d.filters), pd.weights_desc())},
        {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}};
    if (d.has_bias) args.emplace(DNNL_ARG_BIAS, mem.wrap(bias, d.bias, memory::format_tag::x));
    const memory user_dst = mem.wrap(y, d.dst, d.activations);
    const memory dst = mem.output(user_dst, pd.dst_desc());
    args.emplace(DNNL_ARG_DST, dst);
    mem.run(plan->forward, args);
    mem.finish_output(dst, user_dst);
    mem.wait();
  });
}

void conv_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const WindowGeometry& g,
                          const Tensor& dx, const Tensor& dw, const Tensor& db) {
  const ConvDims d = conv_dims(x, weight, g, db.defined());
  const auto plan = plan_for(d);
  onednn("convolution backward", [&] {
    CallMemory mem;
    const memory user_grad = mem.wrap(grad, d.dst, d.activations);
    // The two backward primitives usually ask for the same layout of grad; it is then reordered once.
    const memory grad_for_weights = mem.input(user_grad, plan->weights_pd.diff_dst_desc());
    if (dx.defined()) {
      const auto& pd = plan->data_pd;
      const memory grad_for_data = pd.diff_dst_desc() == grad_for_weights.get_desc()
                                       ? grad_for_weights
                                       : mem.input(user_grad, pd.diff_dst_desc());
      const memory user_dx = mem.wrap(dx, d.src, d.activations);
      const memory diff_src = mem.output(user_dx, pd.diff_src_desc());
      mem.run(plan->backward_data,
              {{DNNL_ARG_DIFF_DST, grad_for_data},
               {DNNL_ARG_WEIGHTS, mem.input(mem.wrap(weight, d.weights, d.filters), pd.weights_desc())},
               {DNNL_ARG_DIFF_SRC, diff_src},
               {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}});
      mem.finish_output(diff_src, user_dx);
    }
    const auto& pd = plan->weights_pd;
    const memory user_dw = mem.wrap(dw, d.weights, d.filters);
    const memory diff_weights = mem.output(user_dw, pd.diff_weights_desc());
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem.input(mem.wrap(x, d.src, d.activations), pd.src_desc())},
                                         {DNNL_ARG_DIFF_DST, grad_for_weights},
                                         {DNNL_ARG_DIFF_WEIGHTS, diff_weights},
                                         {DNNL_ARG_SCRATCHPAD, mem.scratchpad(pd.scratchpad_desc())}};
    if (db.defined()) args.emplace(DNNL_ARG_DIFF_BIAS, mem.wrap(db, d.bias, memory::format_tag::x));
    mem.run(plan->backward_weights, args);
    mem.finish_output(diff_weights, user_dw);
    mem.wait();
  });
}

}  // namespace accelera::cpu::onednn
