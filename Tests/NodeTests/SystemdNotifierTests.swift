import Foundation
import LabKit
import Testing

@testable import Node

/// systemd's notification protocol as the node speaks it: which environment turns it on, and the datagrams that
/// reach a socket bound where `NOTIFY_SOCKET` points (a path, or an abstract name written with `@`).
struct SystemdNotifierTests {
    @Test func theEnvironmentDecidesWhetherAndHowOftenToNotify() {
        #expect(SystemdNotifier.fromEnvironment([:]) == nil)
        #expect(SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": ""]) == nil)
        let plain = SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": "/run/systemd/notify"], pid: 42)
        #expect(plain?.socket == "/run/systemd/notify" && plain?.watchdogTimeout == nil)
        let watched = SystemdNotifier.fromEnvironment(
            ["NOTIFY_SOCKET": "@sd", "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "42"], pid: 42)
        #expect(watched?.watchdogTimeout == .seconds(10))
        // The watchdog was meant for another process (a parent that exec'd us without clearing it).
        let other = SystemdNotifier.fromEnvironment(
            ["NOTIFY_SOCKET": "@sd", "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "7"], pid: 42)
        #expect(other != nil && other?.watchdogTimeout == nil)
        #expect(
            SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": "@sd", "WATCHDOG_USEC": "x"], pid: 1)?.watchdogTimeout
                == nil)
    }

    @Test(arguments: [false, true])
    func messagesArriveAsKeyValueLines(abstract: Bool) throws {
        let name = abstract ? "@fleetmesh-test-\(getpid())" : NSTemporaryDirectory() + "fleetmesh-notify-\(getpid())"
        let receiver = try UnixDatagramReceiver(name: name, timeout: .seconds(2))
        defer { receiver.close() }
        let notifier = SystemdNotifier(socket: name, watchdogTimeout: nil)
        try notifier.send([("READY", "1"), ("STATUS", "in the mesh\nas drone-1")])
        try notifier.send([("WATCHDOG", "1")])
        #expect(try receiver.receive() == "READY=1\nSTATUS=in the mesh as drone-1")
        #expect(try receiver.receive() == "WATCHDOG=1")
    }

    @Test func aSocketNobodyListensOnIsAClearError() {
        let notifier = SystemdNotifier(socket: "/nonexistent/notify", watchdogTimeout: nil)
        #expect {
            try notifier.send([("READY", "1")])
        } throws: { error in
            "\(error)".contains("cannot notify systemd at /nonexistent/notify: No such file or directory")
        }
    }
}

/// The journal's native protocol as the node writes it.
struct JournalLogHandlerTests {
    @Test func fieldsAreLinesAndAValueWithANewlineIsSizedBinary() {
        let bytes = JournalLogHandler.encode([("MESSAGE", "peer drone-2 lost"), ("FLEETMESH_TEXT", "a\nb")])
        let expected: [UInt8] =
            Array("MESSAGE=peer drone-2 lost\nFLEETMESH_TEXT\n".utf8) + [3, 0, 0, 0, 0, 0, 0, 0] + Array("a\nb\n".utf8)
        #expect(bytes == expected)
    }

    @Test func metadataKeysBecomeValidFieldNames() {
        #expect(JournalLogHandler.fieldName("peer") == "PEER")
        #expect(JournalLogHandler.fieldName("uav-number.x") == "UAV_NUMBER_X")
        #expect(JournalLogHandler.fieldName("3d") == "K3D")
        #expect(JournalLogHandler.fieldName(String(repeating: "a", count: 80)).count == 50)
    }

    @Test func levelsMapToSyslogPriorities() {
        #expect(
            [.trace, .debug, .info, .notice, .warning, .error, .critical].map(JournalLogHandler.priority)
                == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test func standardErrorIsTheJournalOnlyWhenItsDeviceAndInodeMatch() {
        var info = stat()
        fstat(STDERR_FILENO, &info)
        #expect(JournalLogHandler.standardErrorIsJournal(["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!JournalLogHandler.standardErrorIsJournal(["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!JournalLogHandler.standardErrorIsJournal([:]))
    }
}
