#pragma once
// libaccelera hides its symbols by default (smaller tables, faster loading, no accidental ABI): ACC_API marks
// what belongs to the public interface. Classes used across the library boundary (exceptions, polymorphic
// interfaces) carry it so that their type information is shared.
#if defined(_WIN32)
#define ACC_API __declspec(dllexport)
#else
#define ACC_API __attribute__((visibility("default")))
#endif
