// ChunkingStrategy's and FallbackStrategy's names: parsed here once, where a caller names one (EngineOptions
// are typed).
#include <string>

#include "accelera/core/error.hpp"
#include "accelera/engine.hpp"

namespace accelera {

std::string_view strategy_name(ChunkingStrategy strategy) {
  switch (strategy) {
    case ChunkingStrategy::row: return "row";
    case ChunkingStrategy::tile: return "tile";
    case ChunkingStrategy::adaptive: return "adaptive";
  }
  ACC_ASSERT(false, "unknown ChunkingStrategy {}", static_cast<int>(strategy));
  return {};
}

ChunkingStrategy parse_chunking_strategy(std::string_view name) {
  std::string choices;  // 'row', 'tile' or 'adaptive'
  for (std::size_t i = 0; i < kChunkingStrategies.size(); ++i) {
    const std::string_view choice = strategy_name(kChunkingStrategies[i]);
    if (name == choice) return kChunkingStrategies[i];
    if (i > 0) choices += i + 1 == kChunkingStrategies.size() ? " or " : ", ";
    choices += fmt::format("'{}'", choice);
  }
  throw ValueError(fmt::format("unknown chunking strategy '{}': expected {}", name, choices));
}

std::string_view fallback_strategy_name(FallbackStrategy strategy) {
  switch (strategy) {
    case FallbackStrategy::cpu: return "cpu";
    case FallbackStrategy::default_chunk: return "default_chunk";
    case FallbackStrategy::error: return "error";
  }
  ACC_ASSERT(false, "unknown FallbackStrategy {}", static_cast<int>(strategy));
  return {};
}

FallbackStrategy parse_fallback_strategy(std::string_view name) {
  for (FallbackStrategy choice : kFallbackStrategies) {
    if (name == fallback_strategy_name(choice)) return choice;
  }
  throw ValueError(fmt::format("unknown fallback_strategy '{}': expected 'cpu', 'default_chunk' or 'error'", name));
}

}  // namespace accelera
