package dev.attestgate.client

import java.util.Collections
import java.util.concurrent.atomic.AtomicInteger

/**
 * The test implementation of [IntegrityTokenProvider]: a simulated Android device whose tokens the local
 * stack's fake Google decodes, as the demo's simulated Android device makes them (Tools/attestgate-demo,
 * `FakeGoogle.issueToken`). On a phone, `request(requestHash)` returns an opaque token only Google can
 * decode; here each token is registered with fake_google.py's `/control/verdict` together with the verdict
 * Google would give it, and the server decodes it as in production (OAuth, then `decodeIntegrityToken`).
 *
 * Knobs for the standard API's failure modes: [validRequestsPerPreparation] (the provider goes invalid
 * after that many tokens: `INTEGRITY_TOKEN_PROVIDER_INVALID` until prepared again), [failure] (every request
 * throws it), [replayToken] (every request returns this token: an attacker replaying a captured one).
 */
class FakeGoogleIntegrity(var install: Install = Install.GENUINE) : IntegrityTokenProvider {
    enum class Install {
        /** Installed from Play, unmodified, on a device that meets device integrity. */
        GENUINE,
        /** A re-signed build on a rooted device: Play does not recognise it. */
        TAMPERED
    }

    val prepares = AtomicInteger()
    val requests = AtomicInteger()
    /** The `requestHash` of every token made, in order. */
    val hashes: MutableList<String> = Collections.synchronizedList(ArrayList<String>())
    val tokens: MutableList<String> = Collections.synchronizedList(ArrayList<String>())

    @Volatile var validRequestsPerPreparation = Int.MAX_VALUE
    @Volatile var failure: IntegrityException? = null
    @Volatile var replayToken: String? = null
    private val validLeft = AtomicInteger(0)

    override fun prepare() {
        prepares.incrementAndGet()
        validLeft.set(validRequestsPerPreparation)
    }

    override fun request(requestHash: String): String {
        requests.incrementAndGet()
        failure?.let { throw it }
        if (validLeft.getAndDecrement() <= 0) {
            throw IntegrityException(IntegrityException.Code.PROVIDER_INVALID, "integrity token provider invalid", playErrorCode = -19)
        }
        replayToken?.let { return it }
        val token = LocalStack.randomToken("android-test.")
        register(token, requestHash, install)
        hashes.add(requestHash)
        tokens.add(token)
        return token
    }

    companion object {
        /** Registers with the fake Google the verdict Google would give [token] (Play standard request fields). */
        fun register(token: String, requestHash: String, install: Install, nowMillis: Long = System.currentTimeMillis()) {
            val genuine = install == Install.GENUINE
            val q = { text: String -> JsonText.quote(text) }
            val payload = "{\"requestDetails\":{\"requestPackageName\":${q(LocalStack.packageName)}," +
                "\"requestHash\":${q(requestHash)},\"timestampMillis\":${q(nowMillis.toString())}}," +
                "\"appIntegrity\":{\"appRecognitionVerdict\":${q(if (genuine) "PLAY_RECOGNIZED" else "UNRECOGNIZED_VERSION")}," +
                "\"packageName\":${q(LocalStack.packageName)}," +
                "\"certificateSha256Digest\":[${q(if (genuine) LocalStack.certificateDigest else "cmUtc2lnbmVkLWJ5LWF0dGFja2Vy")}]," +
                "\"versionCode\":\"42\"}," +
                "\"deviceIntegrity\":" + (if (genuine) "{\"deviceRecognitionVerdict\":[\"MEETS_DEVICE_INTEGRITY\"]}" else "{}") + "," +
                "\"accountDetails\":{\"appLicensingVerdict\":${q(if (genuine) "LICENSED" else "UNEVALUATED")}}}"
            val (status, text) = LocalStack.post("${LocalStack.google}/control/verdict", "{\"token\":${q(token)},\"payload\":$payload}")
            check(status == 200) { "fake Google refused the verdict: $status $text" }
        }
    }
}
