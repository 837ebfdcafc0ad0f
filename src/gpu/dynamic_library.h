// DynamicLibrary: a vendor library opened at run time with dlopen, and its symbols looked up by
// name, newest version first. Shared by the NVML and CUDA driver loaders. Keeps the reason a load
// or a lookup failed (dlerror's text), because "NVML not loaded" without the why is useless to the
// person reading the dossier.
//
// A library once opened is never closed: the NVIDIA driver libraries start threads and register
// exit handlers, and unloading them under those crashes at process exit. The handle lives as long
// as the process, which is what the driver's own tools do too.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "util/result.h"

namespace dossier::gpu {

// One looked-up function: the address and the name it was found under, or why it is missing.
template <class Fn>
struct Func {
  Fn fn = nullptr;
  std::string name;     // the symbol found ("nvmlDeviceGetPciInfo_v3"), else the plain name
  std::string missing;  // empty when found
  explicit operator bool() const { return fn != nullptr; }
};

class DynamicLibrary {
 public:
  // Tries each candidate (a file name for the loader's search path, or a path) in order and keeps
  // the first that opens. The error lists every candidate's dlerror text, first one first.
  static Result<DynamicLibrary> Open(const std::vector<std::string>& candidates);

  const std::string& path() const { return path_; }

  // The first of `names` the library exports (newest version first).
  template <class Fn>
  Func<Fn> Find(std::initializer_list<const char*> names) const {
    Func<Fn> f;
    void* p = Lookup(names, &f.name, &f.missing);
    f.fn = reinterpret_cast<Fn>(p);
    return f;
  }

 private:
  void* Lookup(std::initializer_list<const char*> names, std::string* found,
               std::string* missing) const;
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace dossier::gpu
