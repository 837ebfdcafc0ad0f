#include "cli/command.h"

int main(int argc, char** argv) {
  return dossier::cli::Main(argc, argv);
}
