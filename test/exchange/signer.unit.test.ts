import { describe, expect, it } from 'vitest';

import { authHeaders, buildQueryString, prehash, sign } from '../../src/exchange/signer.ts';

// Expected signatures computed independently with Python's hmac/hashlib/base64.
describe('signer', () => {
  it('sorts query keys, leaves out absent values and percent-encodes keys and values', () => {
    expect(buildQueryString({ limit: '500', coin: 'BTC/USDT é', idLessThan: undefined })).toBe(
      'coin=BTC%2FUSDT%20%C3%A9&limit=500',
    );
    expect(buildQueryString({ b: '1', a: '2', 'c d': '&=' })).toBe('a=2&b=1&c%20d=%26%3D');
    expect(buildQueryString({ a: undefined })).toBe('');
  });

  it('signs timestamp + METHOD + path + ? + query for a GET, matching an independent HMAC', () => {
    const input = {
      timestamp: '1700000000000',
      method: 'GET' as const,
      requestPath: '/api/v2/tax/spot-record',
      queryString: buildQueryString({ limit: '500', coin: 'BTC/USDT é' }),
      body: '',
    };
    expect(prehash(input)).toBe('1700000000000GET/api/v2/tax/spot-record?coin=BTC%2FUSDT%20%C3%A9&limit=500');
    expect(sign('secret-1', input)).toBe('AcaBR/gj3QUS4E7MNf/S0vYEdOR1FnxqhQdtgBin6FQ=');
  });

  it('signs a POST over the exact UTF-8 body text, without a "?" when there is no query', () => {
    const input = {
      timestamp: '1700000000000',
      method: 'POST' as const,
      requestPath: '/api/v3/user/create-sub',
      queryString: '',
      body: JSON.stringify({ username: 'alice', note: 'Büro 日本 ✓' }),
    };
    expect(prehash(input)).toBe('1700000000000POST/api/v3/user/create-sub{"username":"alice","note":"Büro 日本 ✓"}');
    expect(sign('secret-1', input)).toBe('p1TSaAyqagIltaBYozuLCmw3fQIY6VS1bzvhy08pFAM=');
  });

  it('builds the headers with the locale, and Content-Type on POST only', () => {
    const credentials = { apiKey: 'key', secretKey: 'secret-1', passphrase: 'pass1234' };
    const base = { timestamp: '1', requestPath: '/p', queryString: '', body: '' };
    const get = authHeaders(credentials, { ...base, method: 'GET' }, 'ja-JP');
    expect(get).toEqual({
      'ACCESS-KEY': 'key',
      'ACCESS-SIGN': sign('secret-1', { ...base, method: 'GET' }),
      'ACCESS-TIMESTAMP': '1',
      'ACCESS-PASSPHRASE': 'pass1234',
      locale: 'ja-JP',
    });
    const post = authHeaders(credentials, { ...base, method: 'POST', body: '{}' }, 'en-US');
    expect(post['Content-Type']).toBe('application/json');
  });
});
