#pragma once
// Data sets for accelera::nn, read from local files only (nothing is downloaded at run time).
#include <string>

#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera::nn::datasets {

struct Split {
  Tensor x;  // float32 rows in [0, 1], on the host
  Tensor y;  // int64 labels
};
struct LabelledData {
  Split train, test;
};

// Fashion-MNIST: 60,000 training and 10,000 test images of 28x28 pixels, x of shape (n, 784), labels in
// [0, 10). Reads the IDX files (gzipped or not) in `root`, else $ACCELERA_FASHION_MNIST_DIR, else Debian's
// dataset-fashion-mnist package (/usr/share/datasets/fashion-mnist). Throws ValueError naming the file and
// the package when a file is absent, and naming the file and the defect when one is malformed.
ACC_API LabelledData fashion_mnist(const std::string& root = "");

}  // namespace accelera::nn::datasets
