// The one door pasted text enters through, before any importer reads it. Pasted outputs arrive
// in every state a terminal, an editor or a chat window leaves them: CRLF, ANSI colour codes,
// trailing spaces, `...` elisions. Those are cleaned here. Hostile input is refused with the line
// it was found on: NUL bytes, binary content, a line or a file beyond what any real output needs.
// Invalid UTF-8 bytes are kept, escaped visibly as \xNN, so the text stored is valid UTF-8.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "import/importer.h"

namespace dossier::import {

inline constexpr size_t kMaxPasteBytes = 16u << 20;  // a whole lspci -vvv of a big host is ~2 MB
inline constexpr size_t kMaxLineBytes = 64u << 10;   // the longest real line is an NCCL/vLLM log

struct Paste {
  Lines lines;                     // cleaned, numbered as in the file; elisions left out
  std::vector<std::string> notes;  // "line 40: '...' (a part was left out of the paste)"
  std::string text;                // the original, valid UTF-8 (bad bytes as \xNN): what is kept
};

// `file` names the input in errors ("FILE:LINE: …"). Errors: kTooLarge, kInvalid.
Result<Paste> ReadPaste(std::string_view bytes, const std::string& file);

// The line without ANSI escape sequences (CSI "ESC[4m", OSC "ESC]…BEL"), CR and trailing blanks.
std::string CleanLine(std::string_view line);

}  // namespace dossier::import
