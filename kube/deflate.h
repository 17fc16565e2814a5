// Deflate with a preset dictionary: small texts that resemble one another
// (the JSON of objects of one kind) stored in a fraction of their size.
//
// A 1.4 KiB pod compresses to about 700 bytes on its own, but to about 120
// against another pod as the dictionary: names, labels and field names are
// then references into the dictionary, and what is left is the pod's UIDs,
// timestamps and versions. The dictionary must be the same bytes for
// inflating as for deflating; only its last 8 KiB or so count.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace vtenant::kube {

// `text` deflated against `dictionary` (which may be empty), with its length
// in front so Inflate allocates once. About 50 KiB of working memory for the
// call, none kept.
std::string DeflateWithDictionary(std::string_view text, std::string_view dictionary);

// The text DeflateWithDictionary was given. Internal when `data` is not
// what DeflateWithDictionary wrote with this `dictionary` (the stream's
// checksum and dictionary id are checked; data deflated with an empty
// dictionary carries no id, so it inflates under any); ResourceExhausted
// when zlib cannot allocate its state.
Result<std::string> InflateWithDictionary(std::string_view data, std::string_view dictionary);

}  // namespace vtenant::kube
