import Hummingbird

/// `/_admin/*`: fault switches, token levers and introspection for tests and operators
/// (docs/backend-api.md, "Admin API"). Not counted, never faulted, no auth: bind to loopback.
struct AdminRoutes: Sendable {
    let backend: Backend
    let limit: Int

    func register(on router: Router<BackendRequestContext>) {
        let backend = backend
        let limit = limit
        let admin = router.group("_admin")
        admin.get("sessions") { request, _ in
            let user = request.uri.queryParameters.get("user")
            let bodies = request.uri.queryParameters.get("bodies").map { $0 == "1" || $0 == "true" } ?? false
            return try Reply.json(await backend.sessionsReport(user: user, includeBodies: bodies)).response
        }
        admin.get("counters") { _, _ in
            try Reply.json(await backend.countersReport()).response
        }
        admin.get("users") { _, _ in
            try Reply.json(["users": await backend.usersReport()]).response
        }
        admin.post("reset") { _, _ in
            try await backend.reset()
            return try Reply.json(["reset": true]).response
        }
        admin.get("faults") { _, _ in
            try Reply.json(FaultsReport(await backend.faultEntries)).response
        }
        admin.post("faults") { request, _ in
            let body = try await request.json(limit: limit)
            guard case .array(let items)? = body["rules"] else { throw BackendRefusal.invalidRequest("the body must be {\"rules\": [...], \"replace\"?: bool}") }
            var rules: [FaultRule] = []
            for item in items {
                do throws(FaultRule.Problem) {
                    rules.append(try FaultRule(json: item))
                } catch {
                    throw BackendRefusal.invalidRequest(error.description)
                }
            }
            let replace = body["replace"] ?? .bool(false)
            guard case .bool(let replacing) = replace else { throw BackendRefusal.invalidRequest("replace must be true or false") }
            let entries = await backend.addFaults(rules, replacing: replacing)
            return try Reply.json(FaultsReport(entries)).response
        }
        admin.delete("faults") { _, _ in
            await backend.clearFaults()
            return try Reply.json(FaultsReport([])).response
        }
        admin.post("tokens") { request, _ in
            try Reply.json(await backend.updateTokens(try await request.json(limit: limit))).response
        }
        admin.post("users/:subject/sessions") { request, context in
            let subject = context.parameters.get("subject") ?? ""
            return try Reply.json(await backend.inject(try await request.json(limit: limit), for: subject)).response
        }
        admin.delete("users/:subject/binding") { _, context in
            try await backend.unbind(subject: context.parameters.get("subject") ?? "")
            return try Reply.json(["unbound": true]).response
        }
        admin.put("trainings") { request, _ in
            try Reply.json(await backend.replaceTrainings(try await request.json(limit: limit))).response
        }
    }
}
