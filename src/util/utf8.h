// The door for foreign text: every string that enters from outside (files under the root, argv,
// environment values, server responses, pasted text) passes through MakeValidUtf8 before it can
// reach the model, a record or a renderer. nlohmann::json throws (type_error 316) when it dumps
// an invalid sequence, so one stray byte in /proc/cmdline would otherwise cost a whole record.
//
// Invalid bytes are not dropped or replaced by U+FFFD: they become the four visible characters
// "\xNN", so a person reading the report sees that the source held a byte that was not text and
// which one. (A literal "\x41" in the source reads the same; the ambiguity is accepted, as lspci
// and the kernel's own escaping accept it.)
//
// Control characters a terminal acts on (ESC of an escape sequence, BEL, backspace, a lone CR,
// DEL, the C1 controls) are written the same way: a hostname "gpu\e]0;PWN\a" is stored and
// printed as "gpu\x1b]0;PWN\x07", never sent raw to a terminal. Tab, line feed, CRLF and NUL
// (the separator of /proc/PID/cmdline and environ) are kept.
//
// Cuts at a byte limit fall on character boundaries (CutUtf8), so a valid value never becomes
// invalid by shortening.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dossier {

// True when s is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, <= U+10FFFF).
bool IsValidUtf8(std::string_view s);
// s with every byte that is not part of a well-formed sequence, and every terminal control
// character, written as "\xNN".
std::string MakeValidUtf8(std::string_view s);
// In place; a no-op (no copy) when s is already valid, the common case.
void MakeValidUtf8InPlace(std::string* s);
// Every element made valid.
std::vector<std::string> MakeValidUtf8(const std::vector<std::string>& v);
// The longest prefix of s of at most max_bytes that does not end inside a character. Meant for
// valid text; on invalid text it still never splits a well-formed sequence.
std::string_view CutUtf8(std::string_view s, size_t max_bytes);

}  // namespace dossier
