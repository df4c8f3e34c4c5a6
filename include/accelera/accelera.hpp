#pragma once
// Umbrella header of the Accelera C++ API.
#include "accelera/backend.hpp"
#include "accelera/core/allocator.hpp"
#include "accelera/core/config.hpp"
#include "accelera/core/device.hpp"
#include "accelera/core/dtype.hpp"
#include "accelera/core/error.hpp"
#include "accelera/core/shape.hpp"
#include "accelera/core/tensor.hpp"
#include "accelera/nn_ops.hpp"
#include "accelera/nn_types.hpp"
#include "accelera/ops.hpp"
#include "accelera/version.hpp"
