package dev.attestgate.client

import java.io.IOException
import java.util.Random

/**
 * An Android app's side of AttestGate's protocol (docs/api.md section 2) for guests on metered routes
 * with request binding, proved by Play Integrity standard requests.
 *
 * For each call it takes a challenge (one the server handed out with an earlier answer, else a fresh one
 * from `POST /v1/attest/challenge`), writes the client-data document for exactly this request, asks the
 * [IntegrityTokenProvider] for a token whose `requestHash` is the document's hash, and sends the request
 * with `X-Device-ID`, `X-Attest-Challenge`, `X-Play-Integrity-Token` and `X-Attest-Client-Data`. Every
 * answer's `X-Attest-Next-Challenge` is kept for a later call. The answer becomes a typed [Outcome].
 *
 * `403 attestation_required` after a proof is recovered once, with a fresh challenge and a fresh token
 * (docs/operations.md, the rollout's enforce criteria); a second refusal is [Outcome.AttestationRequired],
 * unless the [RemediationHook] fixes the install and one more attempt passes. When no token can be made,
 * the call goes without proof and the server's policy decides (a `monitor` route serves it, an `enforce`
 * route answers [Outcome.AttestationUnavailable]). Failures that spent nothing (no connection, `503
 * unavailable`, a transient Play error) are retried by the [RetryPolicy]; a connection lost after the
 * request left is not, since the call may have been served and billed. A call therefore makes at most 3 proved requests plus the policy's retries: it never loops.
 *
 * With a debug token (`AttestGateConfig.debugTokens`, [DebugTokenSource]) a call carries the device ID and
 * the token only, and its refusal is final after one request.
 *
 * The calls block: make them off the main thread (an executor, or `Dispatchers.IO` from coroutines).
 * One client serves any number of threads at once; each call uses its own challenge.
 */
class AttestGateClient @JvmOverloads constructor(
    val config: AttestGateConfig,
    integrity: IntegrityTokenProvider,
    private val transport: HttpTransport = UrlConnectionTransport(),
    /** The next-challenge store; shared by every call of this client. */
    val challenges: ChallengePool = ChallengePool(),
    private val clock: Clock = Clock.SYSTEM,
    private val sleeper: Sleeper = Sleeper.THREAD,
    private val random: Random = Random()
) {
    private val tokens = IntegrityTokens(integrity)
    private val answers = Answers(config)

    /** Warms the integrity provider up now (`prepareIntegrityToken`), e.g. at app start on a background thread. */
    @Throws(IntegrityException::class)
    fun prepare() = tokens.prepare()

    /**
     * One metered call, its answer read whole (within `maxResponseBytes`).
     * @param path the route's path as sent, already percent-encoded, without a query.
     */
    @JvmOverloads
    fun call(method: String, path: String, body: ByteArray = ByteArray(0), contentType: String? = JSON): Outcome =
        run(Request(method, path, body, contentType, streamed = false))

    /** `call("POST", path, body)`. */
    fun post(path: String, body: ByteArray): Outcome = call("POST", path, body)

    /**
     * A call to a streamed route (`"stream": true`, docs/streaming.md): [Outcome.Streamed] with the events
     * as they arrive, or any other outcome exactly as [call] gives it (refusals are JSON answers, and a
     * provider that did not stream comes back as [Outcome.Served]).
     */
    @JvmOverloads
    fun stream(method: String, path: String, body: ByteArray = ByteArray(0), contentType: String? = JSON): Outcome =
        run(Request(method, path, body, contentType, streamed = true))

    internal class Request(
        val method: String,
        val path: String,
        val body: ByteArray,
        val contentType: String?,
        val streamed: Boolean
    )

    private fun run(request: Request): Outcome {
        ClientData.of("", request.method, request.path, request.body) // the arguments' checks, before any I/O
        val debugToken = config.debugTokens.token()
        var retries = 0
        var refusals = 0
        var recovered = false
        var remediated = false
        attempts@ while (true) {
            val step = if (debugToken != null) send(request, debugToken) else attempt(request)
            when (step) {
                is Step.Done -> return step.outcome
                is Step.Retry -> {
                    retries += 1
                    val delay = config.retryPolicy.delayBeforeRetry(retries, step.retryAfterSeconds, random)
                        ?: return step.outcome
                    sleeper.sleep(delay)
                }
                is Step.Refused -> {
                    refusals += 1
                    // Play cannot fix a refused debug token, and a fresh challenge would not change it.
                    if (debugToken != null) return Outcome.AttestationRequired(refusals)
                    if (step.proofSent && !recovered) {
                        recovered = true // once more, with a fresh challenge and a fresh token
                        continue@attempts
                    }
                    val error = step.integrityError
                    val reason = when {
                        step.proofSent -> RemediationHook.Reason.ATTESTATION_REFUSED
                        error?.code == IntegrityException.Code.REMEDIABLE -> RemediationHook.Reason.INTEGRITY_ERROR
                        else -> null
                    }
                    val hook = config.remediation
                    if (hook != null && reason != null && !remediated) {
                        remediated = true
                        if (hook.remediate(reason, error)) {
                            tokens.invalidate()
                            continue@attempts
                        }
                    }
                    return if (step.proofSent || error == null) {
                        Outcome.AttestationRequired(refusals)
                    } else {
                        Outcome.AttestationUnavailable(error)
                    }
                }
            }
        }
    }

    /** One request (and, when the pool is empty, the challenge it needs). */
    private fun attempt(request: Request): Step {
        val challenge = challenges.take(clock.nowMillis() / 1000) ?: when (val fetched = fetchChallenge()) {
            is Fetched.Issued -> fetched.challenge
            is Fetched.Failed -> return fetched.step
        }
        val clientData = ClientData.of(challenge.value, request.method, request.path, request.body)
        var integrityError: IntegrityException? = null
        val token = try {
            tokens.token(clientData.requestHash)
        } catch (error: IntegrityException) {
            challenges.offer(challenge) // not sent, still unspent
            if (error.code == IntegrityException.Code.TRANSIENT) {
                return Step.Retry(Outcome.AttestationUnavailable(error), null)
            }
            integrityError = error
            null
        }
        if (token == null) return send(request, emptyList(), null, integrityError)
        val proof = listOf(
            WireHeaders.CHALLENGE to challenge.value,
            WireHeaders.PLAY_INTEGRITY_TOKEN to token,
            WireHeaders.CLIENT_DATA to clientData.header
        )
        return send(request, proof, challenge, null)
    }

    /** One request proved by a debug token alone: no challenge, no integrity token. */
    private fun send(request: Request, debugToken: DebugToken): Step =
        send(request, listOf(debugToken.header to debugToken.value), null, null)

    /**
     * Sends [request] with the device ID and [proof] (none: unproved). [challenge] is the one [proof]
     * spends, given back to the pool when the request never left.
     */
    private fun send(
        request: Request,
        proof: List<Pair<String, String>>,
        challenge: Challenge?,
        integrityError: IntegrityException?
    ): Step {
        val headers = ArrayList<Pair<String, String>>()
        headers.add(WireHeaders.DEVICE_ID to config.deviceId)
        headers.addAll(proof)
        if (request.contentType != null && request.body.isNotEmpty()) headers.add("Content-Type" to request.contentType)
        if (request.streamed) headers.add("Accept" to "text/event-stream")
        val response = try {
            transport.send(HttpRequest(request.method, config.baseUrl + request.path, headers, request.body))
        } catch (error: NotSentException) {
            if (challenge != null) challenges.offer(challenge) // it never reached the server
            return Step.Retry(Outcome.NetworkFailure(error), null)
        } catch (error: IOException) {
            // The call may have been admitted (and the provider paid) before its answer was lost: not repeated.
            return Step.Done(Outcome.NetworkFailure(error))
        }
        keepNextChallenge(response)
        return answers.metered(response, request.streamed, proofSent = proof.isNotEmpty(), integrityError = integrityError)
    }

    private fun fetchChallenge(): Fetched {
        val response = try {
            transport.send(
                HttpRequest("POST", config.baseUrl + CHALLENGE_PATH, listOf(WireHeaders.DEVICE_ID to config.deviceId), ByteArray(0))
            )
        } catch (error: IOException) {
            return Fetched.Failed(Step.Retry(Outcome.NetworkFailure(error), null))
        }
        return answers.challenge(response)
    }

    private fun keepNextChallenge(response: HttpResponse) {
        val value = response.header(WireHeaders.NEXT_CHALLENGE) ?: return
        if (!Answers.isChallenge(value)) return
        val expires = Answers.seconds(response.header(WireHeaders.NEXT_CHALLENGE_EXPIRES))
            ?: (clock.nowMillis() / 1000 + MIN_TTL_SECONDS)
        challenges.offer(value, expires)
    }

    internal companion object {
        const val JSON = "application/json"
        const val CHALLENGE_PATH = "/v1/attest/challenge"
        /** `CHALLENGE_TTL_SECONDS`'s lowest value: the lifetime assumed for a challenge sent without its expiry. */
        const val MIN_TTL_SECONDS = 30L
    }
}

/** What one attempt came to, for the call's loop. */
internal sealed class Step {
    class Done(val outcome: Outcome) : Step()
    /** Worth another attempt under the retry policy; [outcome] if the policy gives up. */
    class Retry(val outcome: Outcome, val retryAfterSeconds: Long?) : Step()
    /** `403 attestation_required`. */
    class Refused(val proofSent: Boolean, val integrityError: IntegrityException?) : Step()
}

internal sealed class Fetched {
    class Issued(val challenge: Challenge) : Fetched()
    class Failed(val step: Step) : Fetched()
}
