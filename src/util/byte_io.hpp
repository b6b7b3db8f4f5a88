#pragma once
// Little-endian binary records of fitted state (model files of `probity fit`): integers, doubles
// (their IEEE-754 bits, so values read back exactly) and length-prefixed strings. ByteReader
// checks every read against the end and throws std::invalid_argument naming what it was reading,
// so a truncated or corrupted state is an error, never a read past the end.
#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace probity::util {

class ByteWriter {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
  }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  std::uint8_t u8(const char* what) {
    need(1, what);
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  std::uint32_t u32(const char* what) {
    need(4, what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in_[pos_++])) << (8 * i);
    return v;
  }
  std::uint64_t u64(const char* what) {
    need(8, what);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_++])) << (8 * i);
    return v;
  }
  double f64(const char* what) { return std::bit_cast<double>(u64(what)); }
  std::string str(const char* what) {
    const std::uint64_t n = u64(what);
    need(n, what);
    std::string s(in_.substr(pos_, static_cast<std::size_t>(n)));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }
  // A count of items of at least `item_bytes` bytes each: more than the bytes left is corrupt.
  std::size_t count(const char* what, std::size_t item_bytes) {
    const std::uint64_t n = u64(what);
    if (item_bytes > 0 && n > (in_.size() - pos_) / item_bytes)
      throw std::invalid_argument(std::string("corrupt state: count of ") + what +
                                  " exceeds the bytes left");
    return static_cast<std::size_t>(n);
  }
  bool at_end() const { return pos_ == in_.size(); }
  // Throws unless every byte was read.
  void finish(const char* what) const {
    if (!at_end())
      throw std::invalid_argument(std::string("corrupt state: bytes left after ") + what);
  }

 private:
  void need(std::uint64_t n, const char* what) const {
    if (n > in_.size() - pos_)
      throw std::invalid_argument(std::string("truncated state: reading ") + what);
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace probity::util
