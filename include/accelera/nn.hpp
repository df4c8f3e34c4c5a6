#pragma once
// Umbrella header of accelera::nn, the C++ neural-network library: autograd on Variables, differentiable
// functions, modules, optimizers, the seed guide's builder API (Network, LayerBuilder, TrainingConfig) and
// device names (GpuManager, GpuTensor, GpuProfiler), safetensors files shared with Python's accelera.nn,
// local data sets, a prefetching DataLoader, and mixed precision (amp.hpp).
#include "accelera/nn/amp.hpp"
#include "accelera/nn/autograd.hpp"
#include "accelera/nn/data.hpp"
#include "accelera/nn/datasets.hpp"
#include "accelera/nn/functional.hpp"
#include "accelera/nn/gpu.hpp"
#include "accelera/nn/layers.hpp"
#include "accelera/nn/network.hpp"
#include "accelera/nn/optim.hpp"
#include "accelera/nn/profiler.hpp"
#include "accelera/nn/recurrent.hpp"
#include "accelera/nn/safetensors.hpp"
