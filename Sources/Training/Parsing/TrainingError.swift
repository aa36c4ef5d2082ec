/// Why a cached trainings body does not give plans, as one line naming the training (by id, or
/// by position when it has none) and the stage.
package enum TrainingError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case notAList
    case badTraining(index: Int, id: String?, problem: String)
    case badStage(trainingID: String, stage: Int, problem: String)
    case duplicateID(String)
    case unknownTraining(String)

    package var description: String {
        switch self {
        case .notJSON:
            "the trainings cache is not JSON"
        case .notAList:
            #"the trainings cache is neither a list of trainings nor {"trainings": [...]}"#
        case .badTraining(let index, let id, let problem):
            "training \(id.map { "\($0) (#\(index))" } ?? "#\(index)"): \(problem)"
        case .badStage(let id, let stage, let problem):
            "training \(id), stage \(stage): \(problem)"
        case .duplicateID(let id):
            "two trainings have the id \(id)"
        case .unknownTraining(let id):
            "no training with the id \(id) in the cache"
        }
    }
}
