module.exports = globalThis.crypto;
