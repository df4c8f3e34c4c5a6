// ChunkingStrategy's names: parsed here once, where a caller names a strategy (EngineOptions are typed).
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
  for (const auto s : {ChunkingStrategy::row, ChunkingStrategy::tile, ChunkingStrategy::adaptive}) {
    if (name == strategy_name(s)) return s;
  }
  throw ValueError(fmt::format("unknown chunking strategy '{}': expected 'row', 'tile' or 'adaptive'", name));
}

}  // namespace accelera
