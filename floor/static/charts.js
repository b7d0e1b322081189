// The pit view's charts (uPlot, served from the package): the data comes from the page's
// <script type="application/json" id="chart-data"> block (floor/figures.py `series`).
// window.floorCharts keeps each chart, so a test can read back what is drawn.
'use strict';
(() => {
  const source = document.getElementById('chart-data');
  if (!source || typeof uPlot === 'undefined') return;
  const data = JSON.parse(source.textContent);
  const COLOURS = ['#5cb8ff', '#4cd98a', '#ffb547', '#ff6464', '#c7a2ff', '#f3e37c', '#62e0d8',
    '#ff8fc7', '#a3b8c9', '#ffa36e'];
  const money = (cents) => {
    const sign = cents < 0 ? '-' : '';
    const value = Math.abs(cents);
    const dollars = Math.floor(value / 100).toLocaleString('en-US');
    return sign + '$' + dollars + '.' + String(value % 100).padStart(2, '0');
  };
  const shortMoney = (cents) => {
    const dollars = cents / 100;
    if (Math.abs(dollars) >= 10000) return (dollars < 0 ? '-$' : '$') + Math.round(Math.abs(dollars) / 1000) + 'k';
    return (dollars < 0 ? '-$' : '$') + Math.round(Math.abs(dollars));
  };
  window.floorCharts = {};
  for (const box of document.querySelectorAll('.chart')) {
    const key = box.dataset.series;
    const isMoney = box.dataset.unit === 'money';
    const series = [{}];
    data.names.forEach((name, i) => {
      series.push({
        label: name,
        stroke: COLOURS[i % COLOURS.length],
        width: 2,
        value: (u, v) => (v == null ? '' : isMoney ? money(v) : v.toFixed(0)),
      });
    });
    const options = {
      width: Math.max(box.clientWidth, 320),
      height: 240,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), data.zone),
      series,
      axes: [
        { stroke: '#8a97a3', grid: { stroke: '#26313b' }, ticks: { stroke: '#26313b' } },
        {
          stroke: '#8a97a3',
          grid: { stroke: '#26313b' },
          ticks: { stroke: '#26313b' },
          size: 60,
          values: (u, values) => values.map((v) => (isMoney ? shortMoney(v) : String(v))),
        },
      ],
      scales: { x: { time: true } },
      legend: { live: true },
    };
    const chart = new uPlot(options, [data.x, ...data[key]], box);
    window.floorCharts[box.id] = chart;
  }
})();
