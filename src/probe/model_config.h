// The model a server serves, from its config.json (Hugging Face layout): architecture, layers,
// hidden size, attention heads, experts (routed, shared, active per token), dtype and the
// quantization (quantization_config in config.json, or ModelOpt's hf_quant_config.json).
//
// The model argument may be a directory, a path relative to the server's working directory, a
// GGUF file (llama.cpp: config.json does not apply), or a hub id found in the Hugging Face cache
// ($HF_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub of the
// server's user). Every file is read through RootFs with a size bound; a malformed file makes
// the facts unknown with the file and line.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "fs/root_fs.h"
#include "model/software.h"

namespace dossier {

struct ModelLocation {
  std::string given;  // as on the command line (already redacted)
  std::string from;   // the flag that gave it: "--model-path", "positional argument", "-m"…
  std::string cwd;    // the server's working directory; "" when unknown
  // HOME, HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME, XDG_CACHE_HOME of the server.
  std::map<std::string, std::string> env;
  std::string revision;  // --revision, "" for main
  std::string cmdline;   // "/proc/PID/cmdline", the source of `path`
};

// Finds and reads the model. Facts that cannot be had are unknown with the reason.
ModelConfig ReadServedModel(const RootFs& fs, const ModelLocation& loc);

// Reads config.json (and hf_quant_config.json, model.safetensors.index.json) of a model
// directory into `out`; `out->path` is left as it is.
void ReadModelDir(const RootFs& fs, const std::string& dir, ModelConfig* out);

// The parsers on text, for tests: config.json, and hf_quant_config.json into a quantization.
// `path` is the file name used in sources and messages.
void ParseModelConfigText(std::string_view text, const std::string& path, ModelConfig* out);
void ParseHfQuantConfigText(std::string_view text, const std::string& path, ModelQuantization* q);

}  // namespace dossier
