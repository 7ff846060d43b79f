// Runs a program (the cache test helper, the stubjit command) as a separate process
// with posix_spawn (no fork of a process that already runs LLVM or OpenMP threads);
// its stdout and stderr go to files, and NAME=value words on stdout are parsed.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace stubjit::test {

struct ChildReport {
  int exit_code = -1;
  std::map<std::string, std::string> fields;  // compiles, disk_hits, ..., digest, results
  std::string output;                         // stdout
  std::string errors;                         // stderr
  std::uint64_t number(const std::string& name) const {
    auto it = fields.find(name);
    return it == fields.end() ? ~std::uint64_t(0) : std::stoull(it->second);
  }
};

class Child {
 public:
  // Starts `arguments` (argv[0] is the program) with the environment plus `env`
  // (NAME=value entries replacing inherited ones), stdout to `output_path`, stderr
  // to `output_path`.err.
  Child(const std::vector<std::string>& arguments, const std::vector<std::string>& env,
        std::string output_path)
      : output_path_(std::move(output_path)) {
    std::vector<std::string> environment;
    for (char** e = environ; *e; ++e) {
      const std::string entry = *e;
      bool replaced = false;
      for (const std::string& override_entry : env) {
        const std::string name = override_entry.substr(0, override_entry.find('=') + 1);
        replaced = replaced || entry.rfind(name, 0) == 0;
      }
      if (!replaced) environment.push_back(entry);
    }
    environment.insert(environment.end(), env.begin(), env.end());
    std::vector<char*> argv, envp;
    for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const std::string errors_path = output_path_ + ".err";
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errors_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("posix_spawn failed for " + arguments[0]);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  Child(Child&& other) noexcept : pid_(other.pid_), output_path_(std::move(other.output_path_)) {
    other.pid_ = -1;
  }
  ~Child() {
    if (pid_ > 0) wait();
  }
  // SIGKILL, if it was not waited for yet: so that a test that fails before it stops a
  // child that waits for it (a slot holder) does not hang in the destructor's wait.
  void kill() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
  }

  ChildReport wait() {
    ChildReport report;
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_) {
      report.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    pid_ = -1;
    std::stringstream text;
    text << std::ifstream(output_path_).rdbuf();
    report.output = text.str();
    std::stringstream errors;
    errors << std::ifstream(output_path_ + ".err").rdbuf();
    report.errors = errors.str();
    std::istringstream fields(report.output);
    for (std::string field; fields >> field;) {
      const std::size_t eq = field.find('=');
      if (eq != std::string::npos) report.fields[field.substr(0, eq)] = field.substr(eq + 1);
    }
    return report;
  }

 private:
  pid_t pid_ = -1;
  std::string output_path_;
};

}  // namespace stubjit::test
