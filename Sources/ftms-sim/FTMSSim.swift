@main
struct FTMSSim {
    static func main() {}
}
