// Files installed beside the library in <libdir>/stubjit/: the compile worker and the
// CPU backend's compiler plugin. Found from where the code that asks was loaded, not
// through a search path, so an application's environment cannot put another one first.
#pragma once

#include <string>

namespace stubjit::detail {

// The first of these that exists (and is executable, for `executable`):
//   <folder of the image holding this code>/stubjit/<name>  (libstubjit.so's install)
//   <folder of the program>/<name>   (a program linked with the static archive and
//                                     installed in that folder: the compile worker)
//   `build_tree_path`, only for programs inside the build tree (its tests): neither
//   libstubjit.so nor an installed program ever uses a file of the tree it was built in.
// The image's path is absolute (/proc/self/exe for a program), so nothing is looked
// up relative to the current directory.
// "" when none exists.
std::string find_beside_library(const std::string& name, const char* build_tree_path,
                                bool executable);

// Whether `path` lies inside `folder`, both with their links resolved: a program's path
// comes from /proc/self/exe, always resolved, while the build tree's is the one CMake
// was given, which may pass through a link (a home folder that is one, or a build tree
// reached through one on another machine).
bool lies_inside(const std::string& path, const std::string& folder);

}  // namespace stubjit::detail
