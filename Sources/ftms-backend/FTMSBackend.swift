@main
struct FTMSBackend {
    static func main() {}
}
