import Foundation
import TestscopeExecution
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The section table of an Elf64 little-endian file, or of a 64-bit Mach-O file (`MachOFile`), reading
/// only the bytes asked for: test binaries are tens of MB and coverage needs a few KB of them.
package struct ELFFile: Sendable {
    /// One section header, by name.
    package struct Section: Sendable, Equatable {
        package var name: String
        package var type: UInt32
        package var flags: UInt64
        package var offset: UInt64
        package var size: UInt64
        /// SHF_COMPRESSED: the bytes are a compression header plus a payload (llvm-cov cannot read those either).
        package var isCompressed: Bool { flags & 0x800 != 0 }
        /// SHT_NOBITS (.bss-like): no bytes in the file.
        package var hasNoBits: Bool { type == 8 }
    }

    package let path: String
    package let fileSize: UInt64
    package let sections: [Section]
    /// A Mach-O file's LC_UUID (its build ID), in lower-case hex.
    package let uuid: String?
    /// A Mach-O file's architecture (of the slice read, in a universal file); nil for ELF.
    package let architecture: String?

    /// Reads the ELF header and section table, or a Mach-O file's load commands (of the slice of a
    /// universal file `requested` names, else the host's, else the only one: `MachOFile.choose`);
    /// anything but Elf64 little-endian or 64-bit little-endian Mach-O is `.unsupported`.
    package init(path: String, architecture requested: String? = nil) throws {
        self.path = path
        let handle = try Self.open(path)
        defer { close(handle) }
        let size = try Self.size(handle, path: path)
        fileSize = size
        let header = try Self.read(handle, offset: 0, count: min(64, size), path: path)
        if MachOFile.isMachO(header) {
            let read = { (offset: UInt64, count: UInt64) in try Self.read(handle, offset: offset, count: count, fileSize: size, path: path) }
            let slice = try MachOFile.slices(read, fileSize: size).map { try MachOFile.choose($0, requested: requested) }
            let contents = try MachOFile.contents(read, base: slice?.offset ?? 0, size: slice?.size ?? size,
                                                  requested: requested, inUniversal: slice != nil)
            (sections, uuid, architecture) = (contents.sections, contents.uuid, contents.architecture)
            return
        }
        (uuid, architecture) = (nil, nil)
        try Self.checkIdentity(header)
        var reader = ByteReader(header, context: "ELF header")
        try reader.require(64, "Elf64 header")
        try reader.seek(to: 0x28)
        let sectionTableOffset = try reader.u64("e_shoff")
        try reader.seek(to: 0x3a)
        let entrySize = try reader.u16("e_shentsize")
        var count = UInt64(try reader.u16("e_shnum"))
        var namesIndex = UInt64(try reader.u16("e_shstrndx"))
        guard sectionTableOffset != 0 else { sections = []; return }
        guard entrySize == 64 else { throw ProfileDataError.corrupt("ELF: section header size \(entrySize), not 64") }
        // Extended numbering: section 0 holds the real count (sh_size) and names index (sh_link).
        let first = try Self.read(handle, offset: sectionTableOffset, count: 64, fileSize: size, path: path)
        var firstReader = ByteReader(first, context: "ELF section 0")
        try firstReader.seek(to: 32)
        let extendedCount = try firstReader.u64("sh_size")
        let extendedLink = UInt64(try firstReader.u32("sh_link"))
        if count == 0 { count = extendedCount }
        if namesIndex == 0xffff { namesIndex = extendedLink }
        guard count <= 1 << 20 else { throw ProfileDataError.corrupt("ELF: \(count) sections") }
        let table = try Self.read(handle, offset: sectionTableOffset, count: count * 64, fileSize: size, path: path)
        var raw: [(nameOffset: UInt32, section: Section)] = []
        var tableReader = ByteReader(table, context: "ELF section table")
        for _ in 0..<Int(count) {
            let nameOffset = try tableReader.u32("sh_name")
            let type = try tableReader.u32("sh_type")
            let flags = try tableReader.u64("sh_flags")
            _ = try tableReader.u64("sh_addr")
            let offset = try tableReader.u64("sh_offset")
            let sectionSize = try tableReader.u64("sh_size")
            try tableReader.skip(24, "sh_link … sh_entsize")
            raw.append((nameOffset, Section(name: "", type: type, flags: flags, offset: offset, size: sectionSize)))
        }
        guard namesIndex < count else { throw ProfileDataError.corrupt("ELF: section names index \(namesIndex) of \(count)") }
        let namesSection = raw[Int(namesIndex)].section
        let names = try Self.read(handle, offset: namesSection.offset, count: namesSection.size, fileSize: size, path: path)
        sections = raw.map { entry in
            var section = entry.section
            section.name = Self.cString(names, at: Int(entry.nameOffset))
            return section
        }
    }

    package func section(named name: String) -> Section? {
        sections.first { $0.name == name }
    }

    /// The section's bytes as stored in the file.
    package func bytes(of section: Section) throws -> [UInt8] {
        try bytes(of: [section], aligningEachTo: 1)
    }

    /// The sections' bytes concatenated, each padded with zeros to a multiple of `alignment`
    /// (llvm's reading of several covfun sections), read in place into one buffer: the 4.7 MB
    /// covfun section of an 800-file package was copied three times on its way in.
    package func bytes(of sections: [Section], aligningEachTo alignment: Int) throws -> [UInt8] {
        let sizes = try sections.map { try size(of: $0) }
        let padded = sizes.map { ($0 + alignment - 1) / alignment * alignment }
        var bytes = [UInt8](repeating: 0, count: padded.reduce(0, +))
        let handle = try Self.open(path)
        defer { close(handle) }
        var start = 0
        for (index, section) in sections.enumerated() {
            try Self.read(handle, offset: section.offset, count: Int(sizes[index]), into: &bytes, at: start, path: path)
            start += padded[index]
        }
        return bytes
    }

    /// The section's size in the file (0 for SHT_NOBITS), checked to lie within the file: a
    /// hostile size is an error before it is used as a count.
    package func size(of section: Section) throws -> Int {
        guard !section.hasNoBits, section.size > 0 else { return 0 }
        guard section.offset <= fileSize, section.size <= fileSize - section.offset else {
            throw ProfileDataError.truncated("ELF: \(section.size) bytes at offset \(section.offset) past the end of \(fileSize)")
        }
        return Int(section.size)
    }

    /// The GNU build ID (`.note.gnu.build-id`, NT_GNU_BUILD_ID) or Mach-O LC_UUID in lower-case hex, or nil without one.
    package func buildID() throws -> String? {
        if let uuid { return uuid }
        guard let section = section(named: ".note.gnu.build-id") else { return nil }
        var reader = ByteReader(try bytes(of: section), context: ".note.gnu.build-id")
        while reader.remaining >= 12 {
            let nameSize = try reader.u32("n_namesz")
            let descSize = try reader.u32("n_descsz")
            let type = try reader.u32("n_type")
            let name = try reader.bytes(Int(nameSize), "note name")
            reader.align(to: 4)
            let desc = try reader.bytes(Int(descSize), "note descriptor")
            reader.align(to: 4)
            if type == 3, name.starts(with: Array("GNU".utf8)) { return desc.hexString }
        }
        return nil
    }

    private static func checkIdentity(_ header: [UInt8]) throws {
        guard header.count >= 4 else { throw ProfileDataError.unsupported("not an ELF file (\(header.count) bytes)") }
        let magic = Array(header.prefix(4))
        if magic == [0x7f, 0x45, 0x4c, 0x46] {
            guard header.count >= 6 else { throw ProfileDataError.truncated("ELF: header cut short") }
            guard header[4] == 2 else { throw ProfileDataError.unsupported("32-bit ELF") }
            guard header[5] == 1 else { throw ProfileDataError.unsupported("big-endian ELF") }
            return
        }
        if magic.prefix(2) == [0x4d, 0x5a] { throw ProfileDataError.unsupported("PE/COFF binary (only ELF and Mach-O are read natively)") }
        throw ProfileDataError.unsupported("not an ELF file")
    }

    private static func cString(_ bytes: [UInt8], at offset: Int) -> String {
        guard offset >= 0, offset < bytes.count else { return "" }
        let end = bytes[offset...].firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    static func open(_ path: String) throws -> Int32 {
        let fd = posixOpen(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ProfileDataError.io("cannot open \(path) (\(SystemErrorText.posix(errno)))") }
        return fd
    }

    static func size(_ fd: Int32, path: String) throws -> UInt64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ProfileDataError.io("\(path): \(SystemErrorText.posix(errno))") }
        return UInt64(max(0, info.st_size))
    }

    static func read(_ fd: Int32, offset: UInt64, count: UInt64, fileSize: UInt64, path: String) throws -> [UInt8] {
        guard offset <= fileSize, count <= fileSize - offset else {
            throw ProfileDataError.truncated("ELF: \(count) bytes at offset \(offset) past the end of \(fileSize)")
        }
        return try read(fd, offset: offset, count: count, path: path)
    }

    private static func read(_ fd: Int32, offset: UInt64, count: UInt64, path: String) throws -> [UInt8] {
        // Not zeroed first: the read fills every byte or throws (a short read is an error).
        var bytes = [UInt8](unsafeUninitializedCapacity: Int(count)) { _, initialized in initialized = Int(count) }
        try read(fd, offset: offset, count: Int(count), into: &bytes, at: 0, path: path)
        return bytes
    }

    private static func read(_ fd: Int32, offset: UInt64, count: Int, into bytes: inout [UInt8], at start: Int, path: String) throws {
        let done: Int
        do { done = try InputFile.read(fd, offset: offset, count: count, into: &bytes, at: start) } catch {
            throw ProfileDataError.io("\(path): \(error.reason)")
        }
        guard done == count else { throw ProfileDataError.truncated("ELF: short read at \(offset)") }
    }
}

/// `open(2)` under another name: `ELFFile.open` shadows it inside the type.
private func posixOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
