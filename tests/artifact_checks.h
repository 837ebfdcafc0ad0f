// Generated artifacts read back the way their consumers read them, for the adversarial tests and
// the generators' fuzz entry: a systemd unit's sections, keys and Exec arguments (systemd's
// quoting: C escapes in quotes, %% and $$), a libvirt <qemu:…> block inside <domain> (pugixml),
// an NCCL topology file (pugixml), a Proxmox args: line split as a POSIX shell splits words.
// Each returns "" when the artifact holds only what the generator means to write, else what
// broke out.
#pragma once

#include <pugixml.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dossier::testing {

// One systemd Exec*= value split into arguments (systemd.service "Command lines"): words
// separated by spaces, "…" and '…' quoting with C escapes (\\ \" \' \n \t \xNN), %% a '%', $$ a
// '$'. A lone % (a specifier) or $ (a variable) is reported in `problem`.
inline std::vector<std::string> SystemdExecArgs(std::string_view v, std::string* problem) {
  std::vector<std::string> out;
  size_t i = 0;
  auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
  };
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == '\t')) ++i;
    if (i >= v.size()) break;
    std::string w;
    char quote = 0;
    if (v[i] == '"' || v[i] == '\'') quote = v[i++];
    bool closed = !quote;
    while (i < v.size()) {
      char c = v[i];
      if (quote && c == quote) {
        closed = true;
        ++i;
        break;
      }
      if (!quote && (c == ' ' || c == '\t')) break;
      if (c == '%') {
        if (i + 1 < v.size() && v[i + 1] == '%') {
          w += '%';
          i += 2;
          continue;
        }
        *problem += "a % specifier; ";
      }
      if (c == '$') {
        if (i + 1 < v.size() && v[i + 1] == '$') {
          w += '$';
          i += 2;
          continue;
        }
        *problem += "a $ variable; ";
      }
      if (c == '\\' && i + 1 < v.size()) {
        char e = v[i + 1];
        i += 2;
        if (e == 'n')
          w += '\n';
        else if (e == 't')
          w += '\t';
        else if (e == 'x' && i + 1 < v.size()) {
          w += static_cast<char>(hex(v[i]) * 16 + hex(v[i + 1]));
          i += 2;
        } else
          w += e;
        continue;
      }
      w += c;
      ++i;
    }
    if (!closed) *problem += "an unclosed quote; ";
    out.push_back(w);
  }
  return out;
}

// The unit's sections and keys are the generator's own: [Unit], [Service], [Install] once each,
// in that order, with the keys numa-affinity writes; no line continues into the next; every
// ExecStart= is `/bin/sh -c COMMAND`, whose commands are returned in `commands`.
inline std::string UnitProblem(const std::string& unit, std::vector<std::string>* commands) {
  static const std::set<std::string> kUnit = {"Description", "DefaultDependencies", "After",
                                              "Before", "ConditionPathIsDirectory"};
  static const std::set<std::string> kService = {"Type", "RemainAfterExit", "ExecStart"};
  static const std::set<std::string> kInstall = {"WantedBy"};
  std::string section, seen;
  size_t start = 0, line_no = 0;
  while (start < unit.size()) {
    size_t end = unit.find('\n', start);
    if (end == std::string::npos) end = unit.size();
    std::string line = unit.substr(start, end - start);
    start = end + 1;
    ++line_no;
    std::string where = "line " + std::to_string(line_no) + ": ";
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    line = line.substr(b);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.pop_back();
    if (!line.empty() && line.back() == '\\') return where + "continues into the next line";
    if (line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      if (line != "[Unit]" && line != "[Service]" && line != "[Install]")
        return where + "a section of its own: " + line;
      if (seen.find(line) != std::string::npos) return where + "a second " + line;
      seen += line;
      section = line;
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) return where + "not KEY=VALUE: " + line;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    const auto& keys = section == "[Unit]"      ? kUnit
                       : section == "[Service]" ? kService
                       : section == "[Install]" ? kInstall
                                                : std::set<std::string>{};
    if (!keys.count(key)) return where + "key '" + key + "' in " + section;
    if (key == "ExecStart") {
      std::string problem;
      auto argv = SystemdExecArgs(value, &problem);
      if (!problem.empty()) return where + problem;
      if (argv.size() != 3 || argv[0] != "/bin/sh" || argv[1] != "-c")
        return where + "ExecStart is not /bin/sh -c COMMAND: " + value;
      if (commands) commands->push_back(argv[2]);
    }
  }
  if (seen != "[Unit][Service][Install]") return "sections " + seen;
  return "";
}

// The libvirt block inside the <domain> it is pasted into: one <qemu:override> of
// <qemu:device alias=…><qemu:frontend><qemu:property name='x-nv-gpudirect-clique' …/>, or one
// <qemu:commandline> of -set / device.ID.x-nv-gpudirect-clique=N pairs. The aliases (override)
// or ids (commandline) are returned.
inline std::string LibvirtBlockProblem(const std::string& block, std::vector<std::string>* ids) {
  std::string domain =
      "<domain xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n" + block + "</domain>";
  pugi::xml_document doc;
  auto r = doc.load_string(domain.c_str());
  if (!r) return std::string("not well-formed: ") + r.description();
  std::vector<pugi::xml_node> tops;
  for (auto n : doc.child("domain").children())
    if (n.type() == pugi::node_element) tops.push_back(n);
  if (tops.size() != 1) return "more than one element in the block: " + std::to_string(tops.size());
  std::string top = tops[0].name();
  if (top == "qemu:override") {
    for (auto d : tops[0].children()) {
      if (d.type() != pugi::node_element) continue;
      if (std::string(d.name()) != "qemu:device") return std::string("element ") + d.name();
      for (auto f : d.children()) {
        if (f.type() != pugi::node_element) continue;
        if (std::string(f.name()) != "qemu:frontend") return std::string("element ") + f.name();
        for (auto p : f.children())
          if (p.type() == pugi::node_element &&
              (std::string(p.name()) != "qemu:property" ||
               std::string(p.attribute("name").value()) != "x-nv-gpudirect-clique"))
            return std::string("property ") + p.name() + " " + p.attribute("name").value();
      }
      if (ids) ids->push_back(d.attribute("alias").value());
    }
    return "";
  }
  if (top == "qemu:commandline") {
    std::vector<std::string> args;
    for (auto a : tops[0].children()) {
      if (a.type() != pugi::node_element) continue;
      if (std::string(a.name()) != "qemu:arg") return std::string("element ") + a.name();
      args.push_back(a.attribute("value").value());
    }
    if (args.size() % 2) return "an odd number of arguments";
    for (size_t i = 0; i < args.size(); i += 2) {
      const std::string& v = args[i + 1];
      const std::string suffix = ".x-nv-gpudirect-clique=";
      size_t at = v.rfind(suffix);
      if (args[i] != "-set" || !v.starts_with("device.") || at == std::string::npos)
        return "argument " + args[i] + " " + v;
      if (ids) ids->push_back(v.substr(7, at - 7));
    }
    return "";
  }
  return "element " + top;
}

// An NCCL topology file: well-formed, <system> at the top, only <cpu> and <pci> below it.
inline std::string NcclTopoProblem(const std::string& xml, size_t* pci_count = nullptr) {
  pugi::xml_document doc;
  auto r = doc.load_string(xml.c_str(), pugi::parse_default | pugi::parse_comments);
  if (!r) return std::string("not well-formed: ") + r.description();
  std::vector<pugi::xml_node> tops;
  for (auto n : doc.children())
    if (n.type() == pugi::node_element) tops.push_back(n);
  if (tops.size() != 1 || std::string(tops[0].name()) != "system") return "not one <system>";
  size_t pci = 0;
  std::string bad;
  struct Walker : pugi::xml_tree_walker {
    size_t* pci;
    std::string* bad;
    bool for_each(pugi::xml_node& n) override {
      if (n.type() != pugi::node_element) return true;
      std::string name = n.name();
      if (name == "pci")
        ++*pci;
      else if (name != "cpu")
        *bad = "element <" + name + ">";
      return bad->empty();
    }
  } w;
  w.pci = &pci;
  w.bad = &bad;
  tops[0].traverse(w);
  if (pci_count) *pci_count = pci;
  return bad;
}

// Words as a POSIX shell splits a line without expansions: blanks separate, '…' quotes
// literally, "…" quotes with \ escaping " \ $ `, a \ outside quotes escapes the next character.
// `problem` says when the line holds something a shell would expand or run ($, `, ;, |, &, <, >,
// an unclosed quote).
inline std::vector<std::string> ShellWords(std::string_view s, std::string* problem) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i >= s.size()) break;
    std::string w;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') {
      char c = s[i];
      if (c == '\'') {
        size_t e = s.find('\'', i + 1);
        if (e == std::string_view::npos) {
          *problem += "unclosed '; ";
          e = s.size();
        }
        w += s.substr(i + 1, e - i - 1);
        i = e + 1;
      } else if (c == '\\' && i + 1 < s.size()) {
        w += s[i + 1];
        i += 2;
      } else {
        if (std::string_view("$`;|&<>\"\n(){}*?[").find(c) != std::string_view::npos)
          *problem += std::string("unquoted '") + c + "'; ";
        w += c;
        ++i;
      }
    }
    out.push_back(w);
  }
  return out;
}

}  // namespace dossier::testing
