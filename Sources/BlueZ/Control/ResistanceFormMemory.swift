package import FTMS

/// Which Set Target Resistance Level form each machine model accepts (contract §4).
///
/// FTMS 1.0 says uint8 at 0.1; some firmware only takes sint16 and answers "invalid
/// parameter" to the spec's form. Learning that costs a round trip, so it is learned once
/// per model and shared by every link to that model, across reconnects. The store can seed
/// and persist it through `known`.
package actor ResistanceFormMemory {
    private var forms: [String: ControlPointRequest.ResistanceForm]

    package init(known: [String: ControlPointRequest.ResistanceForm] = [:]) {
        forms = known
    }

    /// The form to try first for `model`: what it accepted before, else the spec's.
    package func form(for model: String) -> ControlPointRequest.ResistanceForm {
        forms[model] ?? .uint8
    }

    package func remember(_ form: ControlPointRequest.ResistanceForm, for model: String) {
        forms[model] = form
    }

    package var known: [String: ControlPointRequest.ResistanceForm] { forms }
}
