import Testing
import InventoryCore
import InventoryReport

private let items = [
    Item(sku: "A", name: "Apple", priceCents: 150, quantity: 2)!,
    Item(sku: "B", name: "Bean", priceCents: 5, quantity: 0)!,
]

@Test func rendersReport() {
    var report = Report(title: "Stock")
    let text = report.render(items)
    #expect(text.hasPrefix("Stock\n"))
    #expect(text.contains("+ [Apple] x2 = 3.00"))
    #expect(report.header == "Stock (debug)")
}

@Test func loadsReportAsync() async {
    let text = await loadReport(items, title: "Async")
    #expect(text.contains("[Bean]"))
}

@Test(arguments: [0, 5, 1234])
func formatsMoney(cents: Int) {
    #expect(Money.format(cents).contains("."))
}

@Test func summaryOfItems() {
    #expect(summary(items) == "2 items")
}

/// Fails on purpose: `summary(nil)` is "no items".
@Test func deliberateFailure() {
    #expect(summary(nil) == "nothing", "deliberate failure (fixture)")
}
