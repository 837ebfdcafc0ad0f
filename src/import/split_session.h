// Cutting a pasted session (prompts, commands, their outputs one after another) into parts, one
// per output, each with the importer that reads it, or none: what no importer recognises is
// listed with its line range, never dropped silently.
#pragma once

#include <string>
#include <vector>

#include "import/importer.h"

namespace dossier::import {

struct Part {
  size_t begin = 0, end = 0;           // indices into the Lines, [begin, end)
  std::string command;                 // the command a prompt showed before it, when there was one
  const Importer* importer = nullptr;  // null: not recognised
};

// The command of a prompt line ("root@pve:~# lspci -vvv", "$ nvidia-smi topo -m"), or empty when
// the line is not a prompt. `rest` gets what was glued after the command's own text when a paste
// lost the newline ("$ nvidia-smi topo -m        GPU0  GPU1…").
std::string PromptCommand(const std::string& line, std::string* rest);

// With `forced` (--as), the whole text is one part of that format, prompts aside.
std::vector<Part> SplitSession(Lines* lines, const Importer* forced);

}  // namespace dossier::import
