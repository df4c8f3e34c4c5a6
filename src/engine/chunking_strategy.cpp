// ChunkingStrategy's names: parsed here once, where a caller names a strategy (EngineOptions are typed).
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

}  // namespace accelera
