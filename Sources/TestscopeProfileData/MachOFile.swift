#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The load commands of a 64-bit little-endian Mach-O file (MH_OBJECT, MH_EXECUTE, MH_DYLIB,
/// MH_BUNDLE), alone or as a slice of a universal file, read into `ELFFile`'s section list: the
/// coverage sections' bytes are the same in both containers (`__LLVM_COV,__llvm_covfun`,
/// `__LLVM_COV,__llvm_covmap`, `__DATA,__llvm_prf_names`), so only the container differs.
/// 32-bit and big-endian files are `.unsupported` (llvm-cov reads them).
package enum MachOFile {
    /// One architecture of a universal file: where its Mach-O file lies.
    package struct Slice: Sendable, Equatable {
        package var cpuType: UInt32
        package var cpuSubtype: UInt32
        package var offset: UInt64
        package var size: UInt64
        /// llvm's name of the architecture (`-arch`), or `cputype 0x…` for one it does not name.
        package var name: String { MachOFile.architectureName(cpuType: cpuType, cpuSubtype: cpuSubtype) }
    }

    /// What `ELFFile` keeps of a Mach-O file.
    struct Contents {
        var sections: [ELFFile.Section]
        var uuid: String?
        var architecture: String
    }

    /// The machine this runs on, as llvm names it: a universal file's slice of it is read by default.
    package static var hostArchitecture: String? {
        #if arch(x86_64)
        return "x86_64"
        #elseif arch(arm64)
        return "arm64"
        #else
        return nil
        #endif
    }

    /// True when `header` starts with a Mach-O or universal magic, of any width or byte order.
    static func isMachO(_ header: [UInt8]) -> Bool {
        guard header.count >= 4 else { return false }
        let magic = UInt32(header[0]) << 24 | UInt32(header[1]) << 16 | UInt32(header[2]) << 8 | UInt32(header[3])
        return [0xcffaedfe, 0xcefaedfe, 0xfeedfacf, 0xfeedface, 0xcafebabe, 0xcafebabf].contains(magic)
    }

    /// The slices of a universal file (nil for any other file), checked to lie within the file
    /// without overlapping.
    package static func slices(_ read: (UInt64, UInt64) throws -> [UInt8], fileSize: UInt64) throws -> [Slice]? {
        guard fileSize >= 8 else { return nil }
        var header = ByteReader(try read(0, 8), context: "universal header")
        let magic = try header.u32("magic").byteSwapped
        guard magic == 0xcafebabe || magic == 0xcafebabf else { return nil }
        let count = try header.u32("nfat_arch").byteSwapped
        // llvm's limit: more would be a Java class file (the same magic).
        guard count > 0, count < 43 else { throw ProfileDataError.corrupt("universal header: \(count) slices") }
        let entrySize: UInt64 = magic == 0xcafebabf ? 32 : 20
        let tableEnd = 8 + UInt64(count) * entrySize
        guard tableEnd <= fileSize else {
            throw ProfileDataError.truncated("universal header: \(count) slices end at \(tableEnd), past the end of \(fileSize)")
        }
        var table = ByteReader(try read(8, tableEnd - 8), context: "universal header")
        var slices: [Slice] = []
        for _ in 0..<count {
            let cpuType = try table.u32("cputype").byteSwapped
            let cpuSubtype = try table.u32("cpusubtype").byteSwapped
            let offset = entrySize == 32 ? try table.u64("offset").byteSwapped : UInt64(try table.u32("offset").byteSwapped)
            let size = entrySize == 32 ? try table.u64("size").byteSwapped : UInt64(try table.u32("size").byteSwapped)
            try table.skip(Int(entrySize) - (entrySize == 32 ? 24 : 16), "align")
            let slice = Slice(cpuType: cpuType, cpuSubtype: cpuSubtype, offset: offset, size: size)
            guard offset >= tableEnd else {
                throw ProfileDataError.corrupt("universal header: the \(slice.name) slice starts at \(offset), inside the header (\(tableEnd) bytes)")
            }
            guard offset <= fileSize, size <= fileSize - offset else {
                throw ProfileDataError.truncated("universal header: the \(slice.name) slice (\(size) bytes at offset \(offset)) lies outside the file (\(fileSize) bytes)")
            }
            if let other = slices.first(where: { offset < $0.offset + $0.size && $0.offset < offset + size }) {
                throw ProfileDataError.corrupt("universal header: the \(slice.name) and \(other.name) slices overlap")
            }
            slices.append(slice)
        }
        return slices
    }

    /// The slice `requested` names, else the host's, else the only one.
    package static func choose(_ slices: [Slice], requested: String?) throws -> Slice {
        let names = slices.map(\.name).joined(separator: ", ")
        if let requested {
            if let slice = slices.first(where: { $0.name == requested }) { return slice }
            throw ProfileDataError.architecture("a universal binary without \(requested) (it has \(names)); pass --arch with one of these")
        }
        if let host = hostArchitecture, let slice = slices.first(where: { $0.name == host }) { return slice }
        if slices.count == 1 { return slices[0] }
        throw ProfileDataError.architecture("a universal binary of \(names), none of them this machine's; pass --arch with one of these")
    }

    /// The architecture of the slice a report of the universal file at `path` reads (`requested`,
    /// the host's or the only one), for llvm-cov's `-arch`; nil for any other file or when none fits.
    package static func chosenSlice(path: String, requested: String?) -> String? {
        guard let handle = try? ELFFile.open(path) else { return nil }
        defer { close(handle) }
        guard let size = try? ELFFile.size(handle, path: path),
              let slices = try? slices({ try ELFFile.read(handle, offset: $0, count: $1, fileSize: size, path: path) }, fileSize: size) else { return nil }
        return try? choose(slices, requested: requested).name
    }

    /// Reads the Mach-O file at `base` (`size` bytes): its sections (offsets from the file's start) and LC_UUID.
    static func contents(_ read: (UInt64, UInt64) throws -> [UInt8], base: UInt64, size: UInt64, requested: String?,
                         inUniversal: Bool) throws -> Contents {
        guard size >= 4 else { throw ProfileDataError.truncated("Mach-O: \(size) bytes") }
        let magic = try read(base, 4)
        switch magic {
        case [0xcf, 0xfa, 0xed, 0xfe]: break
        case [0xce, 0xfa, 0xed, 0xfe]: throw ProfileDataError.unsupported("32-bit Mach-O binary")
        case [0xfe, 0xed, 0xfa, 0xcf], [0xfe, 0xed, 0xfa, 0xce]: throw ProfileDataError.unsupported("big-endian Mach-O binary")
        default: throw ProfileDataError.corrupt("Mach-O: no Mach-O magic at offset \(base)")
        }
        guard size >= 32 else { throw ProfileDataError.truncated("Mach-O: \(size) bytes, not even a header") }
        var header = ByteReader(try read(base, 32), context: "Mach-O header")
        try header.skip(4, "magic")
        let architecture = architectureName(cpuType: try header.u32("cputype"), cpuSubtype: try header.u32("cpusubtype"))
        if !inUniversal, let requested, requested != architecture {
            throw ProfileDataError.architecture("an \(architecture) binary, not \(requested); pass --arch \(architecture) or no --arch")
        }
        let fileType = try header.u32("filetype")
        guard [1, 2, 6, 8].contains(fileType) else {
            throw ProfileDataError.unsupported("Mach-O file type \(fileType) (only objects, executables, dylibs and bundles are read natively)")
        }
        let count = try header.u32("ncmds")
        let commandsSize = UInt64(try header.u32("sizeofcmds"))
        guard commandsSize <= size - 32 else {
            throw ProfileDataError.truncated("Mach-O: \(commandsSize) bytes of load commands past the end of \(size)")
        }
        guard UInt64(count) * 8 <= commandsSize else {
            throw ProfileDataError.corrupt("Mach-O: \(count) load commands in \(commandsSize) bytes")
        }
        var commands = ByteReader(try read(base + 32, commandsSize), context: "Mach-O load commands")
        var contents = Contents(sections: [], uuid: nil, architecture: architecture)
        for index in 0..<Int(count) {
            let command = try commands.u32("cmd")
            let commandSize = try commands.u32("cmdsize")
            guard commandSize >= 8, Int(commandSize) <= commands.remaining + 8 else {
                throw ProfileDataError.corrupt("Mach-O: load command \(index) of \(commandSize) bytes in \(commands.remaining + 8)")
            }
            var body = try commands.slice(UInt64(commandSize) - 8, "load command \(index)")
            if command == 0x19 {  // LC_SEGMENT_64
                try body.skip(56, "segname … initprot")
                let sectionCount = try body.u32("nsects")
                try body.skip(4, "flags")
                guard UInt64(sectionCount) * 80 <= UInt64(body.remaining) else {
                    throw ProfileDataError.corrupt("Mach-O: \(sectionCount) sections in load command \(index) of \(commandSize) bytes")
                }
                for _ in 0..<sectionCount { contents.sections.append(try section(&body, base: base, size: size)) }
            } else if command == 0x1b {  // LC_UUID
                contents.uuid = try body.bytes(16, "LC_UUID").hexString
            }
        }
        return contents
    }

    /// A section_64, its offset made absolute, checked to lie within the Mach-O file.
    private static func section(_ reader: inout ByteReader, base: UInt64, size: UInt64) throws -> ELFFile.Section {
        let name = fixedString(try reader.bytes(16, "sectname"))
        try reader.skip(16, "segname")
        _ = try reader.u64("addr")
        let sectionSize = try reader.u64("size")
        let offset = UInt64(try reader.u32("offset"))
        try reader.skip(12, "align, reloff, nreloc")
        let flags = try reader.u32("flags")
        try reader.skip(12, "reserved")
        // S_ZEROFILL, S_GB_ZEROFILL, S_THREAD_LOCAL_ZEROFILL: no bytes in the file, ELF's SHT_NOBITS.
        let zeroFill = [0x1, 0xc, 0x12].contains(flags & 0xff)
        if !zeroFill, sectionSize > 0, offset > size || sectionSize > size - offset {
            throw ProfileDataError.truncated("Mach-O: section \(name) (\(sectionSize) bytes at offset \(offset)) past the end of \(size)")
        }
        return ELFFile.Section(name: name, type: zeroFill ? 8 : 1, flags: 0, offset: base + offset, size: sectionSize)
    }

    /// A 16-byte name field: NUL-terminated unless it fills the field (`__llvm_prf_names` does).
    private static func fixedString(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// llvm's architecture names (`MachOObjectFile::getArchTriple`) for the CPU types Apple ships.
    static func architectureName(cpuType: UInt32, cpuSubtype: UInt32) -> String {
        let subtype = cpuSubtype & 0x00ff_ffff
        switch cpuType {
        case 0x0100_0007: return subtype == 8 ? "x86_64h" : "x86_64"
        case 0x0100_000c: return subtype == 2 ? "arm64e" : "arm64"
        case 0x0200_000c: return "arm64_32"
        case 7: return "i386"
        case 12: return subtype == 9 ? "armv7" : subtype == 11 ? "armv7s" : subtype == 12 ? "armv7k" : "arm"
        default: return "cputype 0x" + String(cpuType, radix: 16)
        }
    }
}
