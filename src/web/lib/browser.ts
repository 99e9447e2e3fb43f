// Full-page navigations in one place, so tests can observe them (the test DOM cannot navigate and
// its window.location cannot be spied on):  vi.spyOn(browser, 'assign').mockImplementation(...)
export const browser = {
  assign(url: string) {
    window.location.assign(url);
  },
  reload() {
    window.location.reload();
  },
};
