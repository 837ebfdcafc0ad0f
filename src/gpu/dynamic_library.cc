#include "gpu/dynamic_library.h"

#include <dlfcn.h>

namespace dossier::gpu {

Result<DynamicLibrary> DynamicLibrary::Open(const std::vector<std::string>& candidates) {
  std::string why;
  for (const auto& c : candidates) {
    // RTLD_LOCAL: the library's symbols must not satisfy anyone else's lookups (a stand-in and the
    // real driver could both be loaded in one test process).
    void* h = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      DynamicLibrary lib;
      lib.handle_ = h;
      lib.path_ = c;
      return lib;
    }
    const char* e = ::dlerror();
    if (!why.empty()) why += "; ";
    why += e ? e : (c + ": cannot be opened");
  }
  if (why.empty()) why = "no library to open";
  return Error::NotFound(why);
}

void* DynamicLibrary::Lookup(std::initializer_list<const char*> names, std::string* found,
                             std::string* missing) const {
  for (const char* n : names) {
    ::dlerror();  // clear: a symbol may legitimately be null only in theory, check the error
    void* p = ::dlsym(handle_, n);
    if (p && !::dlerror()) {
      *found = n;
      missing->clear();
      return p;
    }
  }
  *found = names.size() ? *(names.end() - 1) : "";  // the plain name reads best in messages
  std::string all;
  for (const char* n : names) all += (all.empty() ? "" : ", ") + std::string(n);
  *missing = "not in " + path_ + " (looked for " + all + ")";
  return nullptr;
}

}  // namespace dossier::gpu
