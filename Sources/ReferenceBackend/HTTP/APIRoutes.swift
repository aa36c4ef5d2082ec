import Hummingbird

/// The SolidFocus routes (docs/backend-api.md, "API").
struct APIRoutes: Sendable {
    let backend: Backend
    let handle: APIHandler
    let limit: Int

    init(backend: Backend, maxBodyBytes: Int) {
        self.backend = backend
        handle = APIHandler(backend: backend)
        limit = maxBodyBytes
    }

    func register(on router: Router<BackendRequestContext>) {
        let backend = backend
        let limit = limit
        router.post("/auth/sso/:provider", use: handle(.sso) { request, context throws(BackendRefusal) in
            let provider = context.parameters.get("provider") ?? ""
            return try .json(await backend.login(provider: provider, body: try await request.json(limit: limit)))
        })
        router.post("/auth/refresh", use: handle(.refresh) { request, _ throws(BackendRefusal) in
            try .json(await backend.refresh(bearer: request.bearerToken, body: try await request.json(limit: limit)))
        })
        router.post("/auth/logout", use: handle(.logout) { request, _ throws(BackendRefusal) in
            try await backend.logout(bearer: request.bearerToken, body: try await request.json(limit: limit))
            return try .json(["logged_out": true])
        })
        router.post("/sessions/batch_upload", use: handle(.batchUpload) { request, _ throws(BackendRefusal) in
            let principal = try await backend.authenticate(bearer: request.bearerToken)
            return try .json(await backend.uploadBatch(principal, body: try await request.json(limit: limit)))
        })
        router.post("/sessions", use: handle(.upload) { request, _ throws(BackendRefusal) in
            let principal = try await backend.authenticate(bearer: request.bearerToken)
            return try .json(await backend.uploadOne(principal, body: try await request.json(limit: limit)), status: .created)
        })
        router.get("/sessions", use: handle(.sessions) { request, _ throws(BackendRefusal) in
            let principal = try await backend.authenticate(bearer: request.bearerToken)
            return try .json(await backend.sessions(of: principal))
        })
        router.get("/users/me", use: handle(.me) { request, _ throws(BackendRefusal) in
            let principal = try await backend.authenticate(bearer: request.bearerToken)
            return try .json(await backend.me(principal))
        })
        router.get("/users/me/stats", use: handle(.stats) { request, _ throws(BackendRefusal) in
            let principal = try await backend.authenticate(bearer: request.bearerToken)
            return try .json(await backend.stats(of: principal))
        })
        router.patch("/users/me/stats", use: handle(.patchStats) { request, _ throws(BackendRefusal) in
            let principal = try await backend.authenticate(bearer: request.bearerToken)
            return try .json(await backend.patchStats(principal, body: try await request.json(limit: limit)))
        })
        router.get("/trainings", use: handle(.trainings) { request, _ throws(BackendRefusal) in
            _ = try await backend.authenticate(bearer: request.bearerToken)
            return try .json(await backend.trainings())
        })
    }
}
